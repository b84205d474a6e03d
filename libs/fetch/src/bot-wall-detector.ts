import { pageStats } from './text-stats';

/** Is this response a bot wall (challenge, captcha, anti-bot block page) instead of content? */
export interface BotWallVerdict {
  blocked: boolean;
  vendor?: string;
  reason?: string;
}

interface Marker {
  vendor: string;
  pattern: RegExp;
}

/** Markers that only challenge/block pages carry (element ids, script paths, cookies), not mere keywords. */
const STRONG: Marker[] = [
  {
    vendor: 'cloudflare',
    pattern:
      /_cf_chl_opt|\/cdn-cgi\/challenge-platform\/|id=["']?challenge-(form|stage|running|error-text)|cf-browser-verification|cf_captcha_kind/i,
  },
  { vendor: 'cloudflare', pattern: /<title>\s*(Just a moment\.\.\.|Attention Required! \| Cloudflare)\s*<\/title>/i },
  {
    vendor: 'datadome',
    pattern: /geo\.captcha-delivery\.com|ct\.captcha-delivery\.com|captcha-delivery\.com\/captcha|var dd=\{['"]?rt['"]?:/i,
  },
  {
    vendor: 'perimeterx',
    pattern: /_pxCaptcha|px-captcha|captcha\.px-cd[na]\.net|window\._pxAppId|_pxhd.*Press & Hold|id=["']px-captcha/i,
  },
  { vendor: 'akamai', pattern: /errors\.edgesuite\.net|sec-if-cpt-container|_sec\/cp_challenge|bm-verify=/i },
  { vendor: 'imperva', pattern: /_Incapsula_Resource|Incapsula incident ID|incident_id=.*Imperva/i },
  { vendor: 'aws-waf', pattern: /awsWafCookieDomainList|gokuProps|aws-waf-token/i },
  { vendor: 'kasada', pattern: /KPSDK\.(configure|scriptStart)|\/149e9513-01fa-4fb0-aad4-566afd725d1b\//i },
];

/** Weaker signs: a captcha widget or a "verify you are human" text. A wall only on an error status or an otherwise empty page. */
const WEAK: Marker[] = [
  {
    vendor: 'captcha',
    pattern:
      /google\.com\/recaptcha\/|class=["'][^"']*g-recaptcha|hcaptcha\.com\/1\/api|class=["'][^"']*h-captcha|challenges\.cloudflare\.com\/turnstile|class=["'][^"']*cf-turnstile/i,
  },
  {
    vendor: 'generic',
    pattern:
      /verify (that )?you are (a )?human|are you a robot|unusual traffic from your computer|access (to this page )?(has been )?denied|please complete the security check|checking your browser before accessing|request unsuccessful|pardon our interruption/i,
  },
];

const WALL_STATUSES = new Set([401, 403, 405, 429, 503]);

export function detectBotWall(html: string, status = 200, headers: Record<string, string> = {}): BotWallVerdict {
  if ((headers['cf-mitigated'] ?? '').toLowerCase() === 'challenge')
    return { blocked: true, vendor: 'cloudflare', reason: 'cf-mitigated: challenge header' };
  if (headers['x-datadome'] !== undefined && status >= 400)
    return { blocked: true, vendor: 'datadome', reason: `x-datadome header with HTTP ${status}` };
  // A big real page that merely mentions a vendor is content, so only scan the first 256 KiB.
  const head = html.length > 262_144 ? html.slice(0, 262_144) : html;
  for (const m of STRONG)
    if (m.pattern.test(head)) return { blocked: true, vendor: m.vendor, reason: `${m.vendor} challenge marker (HTTP ${status})` };
  const weak = WEAK.find((m) => m.pattern.test(head));
  if (weak) {
    const text = pageStats(head).textLength;
    if (WALL_STATUSES.has(status) || text < 1500)
      return {
        blocked: true,
        vendor: weak.vendor,
        reason: `${weak.vendor} marker on ${WALL_STATUSES.has(status) ? `HTTP ${status}` : `a page with ${text} chars of text`}`,
      };
  }
  return { blocked: false };
}
