/**
 * What a rendered page can send past the address guard: no UDP at all (docs/security.md "Rendered pages",
 * libs/fetch/src/browser-egress.ts). A hostile page (WebRTC with STUN and TURN servers and remote candidates at
 * every address of the host, in the page, an about:blank frame, a sandboxed srcdoc frame and a popup;
 * WebTransport in the page and a worker) is rendered in a network namespace with a veth pair that routes nowhere,
 * so Chromium gathers candidates as on a real host; UDP canaries on every address and the namespace's own UDP
 * counters must count nothing (test/fixtures/udp-egress-probe.ts). Needs root for `unshare -n`, as CI has.
 */
import { join } from 'node:path';
import { runInNetworkNamespace, VETH } from '../support/netns';
import { CHROMIUM, describeWithChromium } from './fetch-helpers';

jest.setTimeout(180_000);

const PROBE = join('test', 'fixtures', 'udp-egress-probe.ts');

interface ProbeResult {
  interfaces: string[];
  selfTest: { heard: string[]; counted: number };
  canary: string[];
  udpSent: number;
  report: Record<string, string>;
}

async function probe(mode: 'fetcher' | 'pool'): Promise<ProbeResult> {
  const run = await runInNetworkNamespace(PROBE, [mode], { veth: true, env: { GLEANER_CHROMIUM_PATH: CHROMIUM } });
  if (run.code !== 0) throw new Error(`the probe failed (exit ${run.code}): ${run.stderr.slice(-3000)}`);
  const result = JSON.parse(run.stdout.trim().split('\n').pop()!) as ProbeResult;
  // The setting is what it must be: a host with interfaces besides loopback, and counters that count.
  expect(result.interfaces).toEqual(expect.arrayContaining([VETH.ipv4, VETH.ipv6]));
  expect(result.selfTest).toEqual({ heard: [`127.0.0.1 9 bytes`, `${VETH.ipv6} 9 bytes`], counted: 2 });
  return result;
}

/** What was sent, short enough for a failure message. */
const sent = (r: ProbeResult) => ({ udpSent: r.udpSent, canary: r.canary.length, first: r.canary.slice(0, 5) });

describeWithChromium('what a rendered page can send past the guard proxy (network namespace, veth pair)', () => {
  it('a page rendered as a scrape renders it: no WebRTC or WebTransport in any frame, not one UDP datagram sent', async () => {
    const result = await probe('fetcher');
    expect(result.report).toEqual({
      main: 'no RTCPeerConnection',
      'about:blank': 'no RTCPeerConnection',
      'sandboxed-srcdoc': 'no RTCPeerConnection',
      popup: 'no RTCPeerConnection',
      webtransport: 'no WebTransport',
      // Workers have no RTCPeerConnection; WebTransport cannot connect through the proxy.
      worker: 'RTCPeerConnection undefined, WebTransport failed,failed,failed',
    });
    expect(sent(result)).toEqual({ udpSent: 0, canary: 0, first: [] });
  });

  it('the launch switches alone (a frame no init script reached): WebRTC negotiates in every frame and sends nothing', async () => {
    const result = await probe('pool');
    expect(result.report).toEqual({
      main: 'negotiated',
      'about:blank': 'negotiated',
      'sandboxed-srcdoc': 'negotiated',
      popup: 'negotiated',
      webtransport: 'failed,failed,failed',
      worker: 'RTCPeerConnection undefined, WebTransport failed,failed,failed',
    });
    expect(sent(result)).toEqual({ udpSent: 0, canary: 0, first: [] });
  });
});
