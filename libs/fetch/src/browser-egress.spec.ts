import { createContext, runInContext } from 'node:vm';
import { NO_PEER_CONNECTIONS_SCRIPT, withEgressSwitches } from './browser-egress';

describe('withEgressSwitches', () => {
  it('adds the WebRTC switches and ends with one --disable-features holding the pool’s and any the arguments name', () => {
    const args = withEgressSwitches(['--no-sandbox', '--disable-features=Foo,Bar', '--mute-audio', '--disable-features=Baz']);
    expect(args).toContain('--webrtc-ip-handling-policy=disable_non_proxied_udp');
    expect(args).toContain('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
    const features = args.filter((a) => a.startsWith('--disable-features='));
    expect(features).toHaveLength(1);
    expect(args[args.length - 1]).toBe(features[0]);
    const names = features[0].slice('--disable-features='.length).split(',');
    expect(names).toEqual(expect.arrayContaining(['IsolateSandboxedIframes', 'MediaRouter', 'HttpsUpgrades', 'Foo', 'Bar', 'Baz']));
    expect(new Set(names).size).toBe(names.length);
    expect(args.filter((a) => !a.startsWith('--disable-features=') && !a.includes('webrtc'))).toEqual(['--no-sandbox', '--mute-audio']);
  });
});

describe('NO_PEER_CONNECTIONS_SCRIPT', () => {
  it('removes the WebRTC and WebTransport interfaces of a global object (a frame’s window) and nothing else', () => {
    const global = {
      RTCPeerConnection: class {},
      webkitRTCPeerConnection: class {},
      RTCDataChannel: class {},
      RTCIceCandidate: class {},
      WebTransport: class {},
      WebTransportError: class {},
      WebSocket: class {},
      fetch: () => undefined,
    };
    runInContext(NO_PEER_CONNECTIONS_SCRIPT, createContext(global));
    expect(Object.keys(global)).toEqual(['WebSocket', 'fetch']);
  });
});
