import { Inject, Injectable } from '@nestjs/common';
import { PageLoaderService } from '@app/pages';
import { ResultsService, ScreenshotsService } from '@app/results';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { ExtractionService } from '../extraction.service';
import { GroundingService } from '../grounding.service';

/*
 * What PageExtractor is built from besides its log, config and metrics, in two named groups instead of a long
 * positional constructor. Both are providers of ExtractionWorkerModule.
 */

/** The steps a page's data goes through: the model chain, grounding, and the loader's conversion (a list counted on the whole page). */
@Injectable()
export class PageSteps {
  constructor(
    readonly extraction: ExtractionService,
    readonly grounding: GroundingService,
    @Inject(PageLoaderService) readonly loader: Pick<PageLoaderService, 'convert'>,
  ) {}
}

/** Where a page's side records go: model calls for debug capture (results), screenshots, and the learned programs' store. */
@Injectable()
export class PageRecords {
  constructor(
    readonly results: ResultsService,
    readonly screenshots: ScreenshotsService,
    @Inject(DOCUMENT_STORE) readonly store: DocumentStore,
  ) {}
}
