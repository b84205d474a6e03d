// Container health probe (Dockerfile HEALTHCHECK, compose and stack healthchecks).
// GET /health on PORT (the API and embedded roles), then on CRAWLER_PORT (the crawler role);
// exits 0 as soon as one answers 2xx, 1 otherwise. Uses Node's built-in fetch: no curl in the image.
const host = !process.env.HOST || process.env.HOST === '0.0.0.0' || process.env.HOST === '::' ? '127.0.0.1' : process.env.HOST;
const hostPart = host.includes(':') ? `[${host}]` : host;
const ports = [...new Set([process.env.PORT || '8080', process.env.CRAWLER_PORT || '8081'])];
const timeoutMs = Number(process.env.HEALTHCHECK_TIMEOUT_MS || 3000);

for (const port of ports) {
  try {
    const response = await fetch(`http://${hostPart}:${port}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    if (response.ok) process.exit(0);
    process.stderr.write(`healthcheck: port ${port} answered ${response.status}\n`);
  } catch (error) {
    process.stderr.write(`healthcheck: port ${port}: ${error.cause?.code ?? error.message}\n`);
  }
}
process.exit(1);
