/**
 * Every image of the swarm test, built from this repository without Docker Hub:
 * - the Debian base (debootstrap --variant=minbase bookworm, cached as a tarball and an image);
 * - the Node 24 base standing in for node:24-bookworm-slim (test/swarm/images/node-base.Dockerfile);
 * - Gleaner from the production docker/Dockerfile itself, its NODE_IMAGE given as a build argument and the
 *   machine's CA bundle as the optional ca_bundle build secret (measured cold, then warm);
 * - Redis, Prometheus (Debian's) and the store (the MongoDB-wire test server) standing in for the
 *   stack's public images; the testbed (test site, model server, driver) from test/.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docker, mustDocker } from './docker-cli';

export const ROOT = join(__dirname, '..', '..');
const IMAGES = join(__dirname, 'images');
const CACHE = '/var/cache/gleaner-swarm';
export const BASE = 'gleaner-swarm/debian:bookworm';
export const NODE_BASE = 'gleaner-swarm/node:24';
export const APP = 'gleaner-swarm/gleaner:test';
export const TESTBED = 'gleaner-swarm/testbed:test';
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

const log = (message: string) => console.log(`[swarm] ${message}`);

export interface BuildTimes {
  base_s: number | null;
  app_cold_s: number | null;
  app_warm_s: number;
  app_image_bytes: number;
  other_images_s: number;
}

const hasImage = async (name: string) => (await docker(['image', 'inspect', name])).code === 0;

async function timed(what: string, work: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  await work();
  const s = (Date.now() - started) / 1000;
  log(`${what}: ${s.toFixed(1)} s`);
  return s;
}

/** The apt mirror of this machine's own sources (debootstrap needs one; no other is reachable). */
function mirror(): string {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const m = /^URIs:\s*(\S+)/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\b/m.exec(text);
    if (m) return m[1];
  }
  return 'http://deb.debian.org/debian';
}

async function buildBase(): Promise<number | null> {
  if (await hasImage(BASE)) return null;
  return timed('Debian base (debootstrap)', async () => {
    const tarball = join(CACHE, 'bookworm-minbase.tar');
    if (!existsSync(tarball)) {
      const dir = join(CACHE, 'rootfs');
      mkdirSync(CACHE, { recursive: true });
      rmSync(dir, { recursive: true, force: true });
      const run = spawnSync('debootstrap', ['--variant=minbase', 'bookworm', dir, mirror()], { stdio: 'inherit' });
      if (run.status !== 0) throw new Error('debootstrap failed');
      execFileSync('tar', ['-C', dir, '-cf', `${tarball}.part`, '.']);
      execFileSync('mv', [`${tarball}.part`, tarball]);
      rmSync(dir, { recursive: true, force: true });
    }
    await mustDocker(['import', '-c', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', tarball, BASE]);
  });
}

/** Build contexts made here, removed once the images are built. */
const made: string[] = [];

function context(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-swarm-image-'));
  made.push(dir);
  for (const [to, from] of Object.entries(files)) cpSync(from, join(dir, to), { recursive: true, dereference: true });
  return dir;
}

async function build(
  name: string,
  dockerfile: string,
  dir: string,
  args: Record<string, string> = {},
  extra: string[] = [],
): Promise<void> {
  const buildArgs = Object.entries(args).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]);
  const ran = await docker(['build', '--progress=plain', '-f', dockerfile, ...buildArgs, ...extra, '-t', name, dir]);
  if (ran.code !== 0) throw new Error(`docker build ${name} failed:\n${ran.stderr.slice(-4000)}`);
}

/** Bundles the testbed's three programs (test site, model server, driver) into one directory. */
async function bundleTestbed(out: string): Promise<void> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: ['site', 'model', 'driver'].map((n) => join(__dirname, 'testbed', `${n}.ts`)),
    outdir: out,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    logLevel: 'warning',
  });
  cpSync(join(ROOT, 'grafana', 'dashboards'), join(out, 'grafana', 'dashboards'), { recursive: true });
  cpSync(join(ROOT, 'docker', 'alerts.yml'), join(out, 'alerts.yml'));
}

export async function buildImages(options: { cold: boolean }): Promise<BuildTimes> {
  const base_s = await buildBase();
  const others = Date.now();
  if (!(await hasImage(NODE_BASE))) {
    const dir = context({ node: join(ROOT, 'node_modules', 'node', 'bin', 'node'), npm: '/usr/lib/node_modules/npm' });
    await build(NODE_BASE, join(IMAGES, 'node-base.Dockerfile'), dir, { BASE_IMAGE: BASE });
  }
  await build('gleaner-swarm/redis:test', join(IMAGES, 'redis.Dockerfile'), IMAGES, { BASE_IMAGE: BASE });
  await build('gleaner-swarm/prometheus:test', join(IMAGES, 'prometheus.Dockerfile'), IMAGES, { BASE_IMAGE: BASE });
  if (spawnSync('bash', [join(ROOT, 'test', 'servers', 'mongo-wire', 'build.sh')], { stdio: 'inherit' }).status !== 0) {
    throw new Error('building the MongoDB-wire server failed (bash test/servers/mongo-wire/build.sh)');
  }
  await build(
    'gleaner-swarm/store:test',
    join(IMAGES, 'store.Dockerfile'),
    context({ out: join(ROOT, 'test', 'servers', 'mongo-wire', 'out'), mongosh: join(IMAGES, 'mongosh') }),
    { BASE_IMAGE: BASE },
  );
  const bed = context({});
  await bundleTestbed(join(bed, 'app'));
  cpSync('/usr/bin/docker', join(bed, 'docker'));
  await build(TESTBED, join(IMAGES, 'testbed.Dockerfile'), bed, { NODE_BASE_IMAGE: NODE_BASE });
  // Grafana's service runs no task: any local image name will do. The base is also `debian:bookworm`, the
  // image docs/operations-deploy.md's backup commands name.
  await mustDocker(['tag', BASE, 'gleaner-swarm/none:test']);
  await mustDocker(['tag', BASE, 'debian:bookworm']);
  const other_images_s = (Date.now() - others) / 1000;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });

  // The production Dockerfile: cold (no build cache, so apt and npm download everything), then warm.
  const secret = existsSync(CA_BUNDLE) ? ['--secret', `id=ca_bundle,src=${CA_BUNDLE}`] : [];
  const app = (extra: string[]) => build(APP, join(ROOT, 'docker', 'Dockerfile'), ROOT, { NODE_IMAGE: NODE_BASE }, [...secret, ...extra]);
  let app_cold_s: number | null = null;
  if (options.cold) {
    // No layer reused and npm's cache mount emptied: apt and npm download everything.
    await mustDocker(['builder', 'prune', '-f', '--filter', 'type=exec.cachemount']);
    app_cold_s = await timed('gleaner image, cold', () => app(['--no-cache']));
  }
  const app_warm_s = await timed('gleaner image, warm', () => app([]));
  // `gleaner` as well: the name docs/operations-deploy.md's build and `docker run` use.
  await mustDocker(['tag', APP, 'gleaner']);
  const app_image_bytes = Number((await mustDocker(['image', 'inspect', APP, '--format', '{{.Size}}'])).trim());
  writeFileSync(join(ROOT, '.swarm', 'images.txt'), await mustDocker(['images']));
  return { base_s, app_cold_s, app_warm_s, app_image_bytes, other_images_s };
}
