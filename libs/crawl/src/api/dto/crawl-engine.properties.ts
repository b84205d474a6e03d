import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { stackedDecorators } from '@app/http';

/** `capture_debug` of a crawl-engine job (crawl, batch, reextract). */
export function CaptureDebugProperty(): PropertyDecorator {
  return stackedDecorators(
    ApiPropertyOptional({ default: false, description: 'Record prompts and model metadata of every page (GET /jobs/{id}/debug-capture).' }),
    IsOptional(),
    IsBoolean(),
  );
}

/** `max_cost_usd` of a crawl-engine job: its cost cap, as `options.max_cost_usd` (the description says how the two meet). */
export function MaxCostUsdProperty(description: string): PropertyDecorator {
  return stackedDecorators(
    ApiPropertyOptional({ description, minimum: 0, maximum: 10_000 }),
    IsOptional(),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(0),
    Max(10_000),
  );
}
