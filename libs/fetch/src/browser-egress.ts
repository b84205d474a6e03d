import type { BrowserContext } from 'playwright';

/**
 * What a rendered page can send past the guard proxy: nothing (docs/security.md "Rendered pages"). The proxy
 * the pool launches Chromium with carries HTTP(S) and WebSockets, each connection vetted by the address
 * guard; what else a page could open is closed in layers, so that one layer's gap is not a way out:
 *
 * 1. WebRTC uses no UDP (launch switches): Chromium's policy `disable_non_proxied_udp` lets WebRTC use UDP
 *    only through a proxy that carries UDP, and an HTTP proxy carries none, so no ICE check, STUN or TURN
 *    request leaves over UDP, in any frame, worker or process (TURN over TCP would go through the guard
 *    proxy). Headless Chromium reads `--webrtc-ip-handling-policy`; `--force-…` is the spelling of a
 *    headed Chrome (and alone does not hold in headless mode).
 * 2. No WebRTC or WebTransport interface in any frame (an init script, before the page's scripts): what
 *    layer 1 leaves, the multicast DNS query Chromium sends to resolve a remote `.local` ICE candidate,
 *    needs an RTCPeerConnection. WebTransport (QUIC, so UDP) is removed too; in workers, where the script
 *    does not run, it cannot connect through a proxy, and workers have no RTCPeerConnection.
 * 3. Sandboxed `srcdoc` iframes stay in their parent's renderer process (`IsolateSandboxedIframes` off): in
 *    a process of their own their script runs before Playwright's init script reaches them.
 *
 * QUIC is off (`--disable-quic`, browser-pool.ts) and is never used through a proxy anyway; the browser
 * resolves no names itself (the proxy does). test/integration/browser-egress.int-spec.ts renders a hostile
 * page in a network namespace with a veth pair and counts every UDP datagram the namespace sends.
 */
const WEBRTC_SWITCHES = [
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/**
 * Playwright's own `--disable-features` list (playwright-core 1.65, chromiumSwitches.ts). Chromium keeps only
 * the last `--disable-features` switch, so the pool's one repeats Playwright's; browser-pool.int-spec.ts checks
 * on a running browser that none of Playwright's is lost (a Playwright upgrade that adds one fails it).
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

const EGRESS_DISABLED_FEATURES = ['IsolateSandboxedIframes'];

const DISABLE_FEATURES = '--disable-features=';

/**
 * The egress switches followed by `args`, with one `--disable-features` that holds Playwright's features, the
 * pool's and any `args` name (Chromium would drop all but the last of several).
 */
export function withEgressSwitches(args: readonly string[]): string[] {
  const features = new Set([...PLAYWRIGHT_DISABLED_FEATURES, ...EGRESS_DISABLED_FEATURES]);
  const rest: string[] = [];
  for (const arg of args) {
    if (!arg.startsWith(DISABLE_FEATURES)) rest.push(arg);
    else for (const name of arg.slice(DISABLE_FEATURES.length).split(',')) if (name) features.add(name);
  }
  return [...WEBRTC_SWITCHES, ...rest, `${DISABLE_FEATURES}${[...features].join(',')}`];
}

/** Removes the WebRTC (RTC*, webkitRTC*) and WebTransport interfaces from the frame's global object. */
export const NO_PEER_CONNECTIONS_SCRIPT = `(() => {
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (/^(webkit)?RTC|^WebTransport/.test(name)) {
      try { delete globalThis[name]; } catch { /* not configurable: left as it is */ }
    }
  }
})();`;

/** Installs NO_PEER_CONNECTIONS_SCRIPT in every frame (main, iframes, popups) of the context's pages. */
export async function removePeerConnections(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: NO_PEER_CONNECTIONS_SCRIPT });
}
