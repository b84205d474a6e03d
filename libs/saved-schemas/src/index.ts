export * from './dto/schema.dto';
export * from './saved-schemas.repository';
export * from './saved-schemas.service';
export * from './saved-schemas.module';
