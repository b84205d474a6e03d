export { CONTENT_WORKER_FILE, PageLoaderService, type LoadedPage } from './page-loader.service';
export { PagesModule } from './pages.module';
