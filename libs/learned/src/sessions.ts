import type { JsonSchemaObject } from '@app/schema';
import type { Collection } from '@app/storage';
import type { LearnedConfig } from './config';
import { LearnedSession, type ModelCall } from './session';
import { StoreTemplateStates, schemaKey, type LearnedTemplateRecord } from './store-template-states';

/** The consumer name of a user's single-page extracts (docs/learned-extraction.md "Extracts"). */
export const EXTRACTS_CONSUMER = 'extracts';

/** A crawl's consumer name: its pages re-verify the rules they use for the crawl alone. */
export function crawlConsumer(crawlId: string): string {
  return `crawl:${crawlId}`;
}

/**
 * Learned extraction for a consumer of the stored templates of a user and schema (a crawl, or the user's
 * single-page extracts): an active rule fills a field of the consumer's pages only after it agreed with the model
 * on `verifyPages` of them, and the consumer's pages never set a template back for another consumer using it
 * (docs/learned-extraction.md "Consumers").
 */
export function consumerSession(
  templates: Collection<LearnedTemplateRecord>,
  scope: { userId: string; schema: JsonSchemaObject; consumer: string },
  model: ModelCall,
  config: Partial<LearnedConfig> = {},
): LearnedSession {
  return new LearnedSession(
    scope.schema,
    model,
    config,
    (fields, resolved) =>
      new StoreTemplateStates(templates, { userId: scope.userId, schemaKey: schemaKey(scope.schema) }, fields, resolved),
    { consumer: scope.consumer },
  );
}

/** A crawl's learned extraction: the consumer `crawl:<id>` over the user's stored templates for the schema. */
export function crawlSession(
  templates: Collection<LearnedTemplateRecord>,
  scope: { userId: string; schema: JsonSchemaObject; crawlId: string },
  model: ModelCall,
  config: Partial<LearnedConfig> = {},
): LearnedSession {
  return consumerSession(templates, { userId: scope.userId, schema: scope.schema, consumer: crawlConsumer(scope.crawlId) }, model, config);
}
