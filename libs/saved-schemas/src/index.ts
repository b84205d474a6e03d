export { CreateSchemaDto, SchemaListResponse, SchemaResponse, UpdateSchemaDto } from './dto/schema.dto';
export { SavedSchemasService } from './saved-schemas.service';
export { SavedSchemasModule } from './saved-schemas.module';
