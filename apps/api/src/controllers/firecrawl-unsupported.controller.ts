import { All, Controller, Delete, Get, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { RequiresKey } from '@app/auth';
import { routeNotSupported } from '@app/firecrawl';

/**
 * Firecrawl operations this server does not have: search, research, agents, browser sessions, interaction,
 * parsing and feedback answer 501 in Firecrawl's error shape, with a key (docs/firecrawl.md "Not supported").
 */
@ApiExcludeController()
@Controller('v2')
@RequiresKey()
export class FirecrawlUnsupportedController {
  @Post('search')
  search(): never {
    throw routeNotSupported('Web search (/v2/search)');
  }

  @All('search/*')
  searchMore(): never {
    throw routeNotSupported('Research and developer search (/v2/search/...)');
  }

  @Post('agent')
  agent(): never {
    throw routeNotSupported('Agents (/v2/agent)');
  }

  @Get('agent')
  agents(): never {
    throw routeNotSupported('Agents (/v2/agent)');
  }

  @All('agent/*')
  agentMore(): never {
    throw routeNotSupported('Agents (/v2/agent)');
  }

  @Post('browser')
  browser(): never {
    throw routeNotSupported('Browser sessions (/v2/browser)');
  }

  @Get('browser')
  browsers(): never {
    throw routeNotSupported('Browser sessions (/v2/browser)');
  }

  @All('browser/*')
  browserMore(): never {
    throw routeNotSupported('Browser sessions (/v2/browser)');
  }

  @Post('scrape/:id/interact')
  interact(): never {
    throw routeNotSupported('Interacting with a scraped page (/v2/scrape/{id}/interact)');
  }

  @Delete('scrape/:id/interact')
  stopInteraction(): never {
    throw routeNotSupported('Interacting with a scraped page (/v2/scrape/{id}/interact)');
  }

  @Post('parse')
  parse(): never {
    throw routeNotSupported('Parsing uploaded files (/v2/parse)');
  }

  @Post('feedback')
  feedback(): never {
    throw routeNotSupported('Feedback (/v2/feedback)');
  }
}
