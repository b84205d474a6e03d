import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { LearnedProgramListResponse, LearnedProgramResponse, LearnedProgramsService, ListLearnedProgramsQuery } from '@app/extraction';

/**
 * The learned templates and programs of extraction_mode auto (docs/learned-extraction.md "Managing
 * learned programs"). The `crawl` scope: crawls make these programs and use them, and a delete
 * changes how the caller's next crawls extract (docs/api.md "Learned programs").
 */
@ApiTags('Learned programs')
@ApiBearerAuth()
@Controller('api/v1/learned-programs')
@RequiresScope('crawl')
export class LearnedProgramsController {
  constructor(private readonly programs: LearnedProgramsService) {}

  @Get()
  @ApiOperation({ summary: 'List your learned templates and their programs, newest first (optionally of one host)' })
  @ApiOkResponse({ type: LearnedProgramListResponse })
  list(@CurrentCaller() caller: Caller, @Query() query: ListLearnedProgramsQuery) {
    return this.programs.list(caller, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a learned template: phase, program, counts, retired programs, last learning failures' })
  @ApiOkResponse({ type: LearnedProgramResponse })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.programs.get(caller, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a learned template and its program',
    description: 'The next page of the template (in any crawl, a running one included) starts a new learning round with the model.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  async remove(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<void> {
    await this.programs.delete(caller, id);
  }
}
