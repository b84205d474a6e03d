/**
 * The methods each registered path answers (from Fastify's onRoute), so a request whose path exists
 * but whose method does not is answered 405 with `Allow` instead of 404.
 */
export class MethodTable {
  private readonly routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];

  add(method: string | string[], url: string): void {
    const source = `^${url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}/?$`;
    let entry = this.routes.find((r) => r.pattern.source === source);
    if (!entry) {
      entry = { pattern: new RegExp(source), methods: new Set() };
      this.routes.push(entry);
    }
    for (const m of Array.isArray(method) ? method : [method]) entry.methods.add(m.toUpperCase());
  }

  /** The methods of the route(s) matching `path`, sorted; empty when no route has this path. */
  allowed(path: string): string[] {
    const found = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) for (const m of route.methods) found.add(m);
    return [...found].sort();
  }
}
