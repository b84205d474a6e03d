export { AddressGuard, pinnedLookup, type Resolver } from './address-guard';
export { fetchError, isFetchError } from './errors';
export { FETCH_MODES, RedirectStopped, type FetchMode, type FetchOptions, type FetchResult, type RenderMode } from './fetch-types';
export {
  COOKIE_VALUE_PATTERN,
  forbiddenHeaderReason,
  HEADER_VALUE_PATTERN,
  parseCookieHeader,
  TOKEN_PATTERN,
  type ScopedRequestData,
  type ScreenshotKind,
  type SessionCookies,
  type WaitFor,
} from './request-control';
export { decodeBody } from './charset';
export { parseRetryAfter } from './retry-after';
export { StaticFetcher } from './static-fetcher';
export { detectNeedsJs } from './js-detector';
export { HOST_MODE_MEMORY, InMemoryHostModeMemory, type HostModeMemory } from './host-mode-memory';
export { Fetcher, type ModeFetchOptions } from './fetcher';
export { RobotsCache } from './robots';
export { guardFromSettings, type RefusalLog } from './guard-config';
export {
  FETCH_CONTROL_DEFAULTS,
  fetchSecretValues,
  keptStoredFetchControl,
  openFetchControl,
  openRequestControl,
  resolveFetchControl,
  splitFetchControl,
  splitOptionsFetchControl,
  storedFetchControlSchema,
  type AuthProfileRef,
  type FetchControl,
  type FetchControlFields,
  type FetchControlLayer,
  type FetchScope,
  type SplitFetchControl,
  type StoredFetchControl,
} from './fetch-control/fetch-control';
export { controlledFetcher, sideReadControl, sideReadFetcher, type SideReadControl } from './fetch-control/controlled-fetcher';
export { FetchControlUnusable } from './fetch-control/control-unusable';
export {
  COOKIE_MAP_RULE,
  FetchCookiesProperty,
  FetchHeadersProperty,
  HEADER_MAP_RULE,
  IsCssSelector,
  MAX_WAIT_MS,
  UserAgentProperty,
  WaitForDto,
  ProxyProperty,
  AuthProfileProperty,
  WaitForProperty,
  WithFetchControl,
} from './fetch-control/fetch-control.properties';
export { BrowserPool } from './browser-pool';
export { markedBrowsers, ownerMark, reapOrphanedBrowsers } from './browser-owner';
export { CgroupMemory, MemoryAdmission } from './memory-admission';
export { DynamicFetcher } from './dynamic-fetcher';
export {
  BrowserStepFailed,
  describeStep,
  runBrowserScript,
  type BrowserScriptInput,
  type BrowserScriptResult,
  type BrowserStep,
} from './browser-script';
export { NO_PROXY, parseProxyPools, type ProxyEndpoint, type ProxyPoolConfig } from './proxy-pool/proxy-pools-config';
export { ProxyPool, ProxyPools, UnconfiguredProxyPool, type ProxyCounters } from './proxy-pool/proxy-pool';
export { throughPool, type PlainFetcher } from './proxy-pool/through-pool';
export { proxyPoolCounters, useProxyPools } from './proxy-pool/configured-pools';
