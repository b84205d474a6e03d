export * from './page-loader.service';
export * from './pages.module';
