import type { INestApplication } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { routePolicyOf, type RoutePolicy } from '@app/auth';

/**
 * Each controller route's auth policy by `METHOD /fastify/:path`, so the API can admit a request (key, rate
 * limit, scope) in its onRequest hook, before the body's content type, size or JSON are looked at
 * (create-app.ts). Read from the same decorators the guard reads, for every controller of the app
 * (extensions' included). A route found in no controller (the OpenAPI document, Swagger UI) is left to itself.
 */
export class RoutePolicies {
  private readonly byRoute = new Map<string, RoutePolicy>();

  static of(app: INestApplication): RoutePolicies {
    const table = new RoutePolicies();
    for (const module of app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
        if (controller) table.addController(controller);
      }
    }
    return table;
  }

  addController(controller: new (...args: never[]) => object): void {
    const base = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of methodNames(prototype)) {
      const handler = prototype[name];
      if (typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      const own = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (method === undefined || own === undefined) continue;
      const policy = routePolicyOf(controller, handler);
      for (const verb of verbsOf(method)) {
        for (const prefix of base) for (const path of pathsOf(own)) this.byRoute.set(routeKey(verb, joinPath(prefix, path)), policy);
      }
    }
  }

  /** The policy of a request's route (`url` as Fastify registered it); HEAD is its GET. */
  policyOf(method: string, url: string | undefined): RoutePolicy | undefined {
    return url ? this.byRoute.get(routeKey(method, url)) : undefined;
  }

  get size(): number {
    return this.byRoute.size;
  }
}

function methodNames(prototype: object): string[] {
  const names = new Set<string>();
  for (let at: object | null = prototype; at && at !== Object.prototype; at = Object.getPrototypeOf(at) as object | null) {
    for (const name of Object.getOwnPropertyNames(at)) if (name !== 'constructor') names.add(name);
  }
  return [...names];
}

function pathsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return [typeof value === 'string' ? value : '/'];
}

function verbsOf(method: RequestMethod): string[] {
  if (method === RequestMethod.ALL) return ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
  return [RequestMethod[method]];
}

/** Nest's joining of a controller's and a handler's paths: one leading slash, no trailing or doubled ones. */
export function joinPath(prefix: string, path: string): string {
  const joined = `/${[prefix, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
  return joined;
}

/** `METHOD /fastify/:path`, the key of a route in these tables. */
export function routeKey(method: string, url: string | undefined): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url ?? ''}`;
}

/** The routes whose operation takes a request body, by routeKey (the document's `{id}` is Fastify's `:id`). */
export function routesWithBody(document: OpenAPIObject): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, { requestBody?: unknown }>)) {
      if (operation?.requestBody) out.add(routeKey(method.toUpperCase(), path.replace(/\{([^}]+)\}/g, ':$1')));
    }
  }
  return out;
}
