import 'reflect-metadata';
import { Controller, Delete, Get, Post } from '@nestjs/common';
import { Public, RequiresScope } from '@app/auth';
import { joinPath, RoutePolicies, routeKey, routesWithBody } from './route-policies';

@Controller('api/v1/things')
@RequiresScope('jobs')
class ThingsController {
  @Get()
  list() {}
  @Get(':id')
  @Public()
  read() {}
  @Post(':id/cancel')
  @RequiresScope('crawl')
  cancel() {}
  @Delete(':id')
  remove() {}
}

@Controller()
class RootController {
  @Get('health')
  @Public()
  health() {}
}

describe('RoutePolicies', () => {
  const table = new RoutePolicies();
  table.addController(ThingsController);
  table.addController(RootController);

  it('keys each route as Fastify registers it, with the policy its decorators give (the handler over its controller)', () => {
    expect(table.size).toBe(5);
    expect(table.policyOf('GET', '/api/v1/things')).toMatchObject({ isPublic: false, requirement: { scope: 'jobs' } });
    expect(table.policyOf('HEAD', '/api/v1/things/:id')).toMatchObject({ isPublic: true });
    expect(table.policyOf('POST', '/api/v1/things/:id/cancel')).toMatchObject({ requirement: { scope: 'crawl' } });
    expect(table.policyOf('DELETE', '/api/v1/things/:id')).toMatchObject({ requirement: { scope: 'jobs' } });
    expect(table.policyOf('GET', '/health')).toMatchObject({ isPublic: true });
  });

  it('knows nothing of a route no controller declares (left to itself)', () => {
    expect(table.policyOf('GET', '/api/v1/openapi.json')).toBeUndefined();
    expect(table.policyOf('GET', undefined)).toBeUndefined();
  });

  it('joins paths as Nest does', () => {
    expect(joinPath('api/v1/jobs', '/')).toBe('/api/v1/jobs');
    expect(joinPath('/api/v1/', ':id/cancel')).toBe('/api/v1/:id/cancel');
    expect(joinPath('', 'health')).toBe('/health');
    expect(joinPath('/', '/')).toBe('/');
  });

  it('reads the operations that take a body from the document', () => {
    const routes = routesWithBody({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/api/v1/things/{id}/cancel': { post: { responses: {} } },
        '/api/v1/things/{id}': { put: { requestBody: { content: {} }, responses: {} }, delete: { responses: {} } },
      },
    });
    expect([...routes]).toEqual([routeKey('PUT', '/api/v1/things/:id')]);
  });
});
