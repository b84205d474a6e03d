import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { WARNING_CODES } from '@app/core';

/** One warning on the wire (libs/core warnings.ts; docs/api.md "Warnings"). */
export class WarningResponse {
  @ApiProperty({
    example: 'content_truncated',
    description: `Stable code; new ones may be added, so treat an unknown one as informational. Today: ${Object.entries(WARNING_CODES)
      .map(([code, meaning]) => `\`${code}\`: ${meaning}`)
      .join('; ')}.`,
  })
  code!: string;
  @ApiProperty({ description: 'What happened and what to do about it, for a person.' }) message!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'body.schema.price',
    description: 'Where it applies, as `errors[].location` of a problem has it; null when it is about the page.',
  })
  location!: string | null;
}

/** The `warnings` property every answer with a page's result has. */
export const WARNINGS_PROPERTY: ApiPropertyOptions = {
  type: [WarningResponse],
  description: 'What worked but deserves a look (docs/api.md "Warnings"): `[]` when nothing does.',
};
