export * from './providers';

export * from './price-table';
export * from './base-url';
export * from './chain-plan';
export * from './llm-config';
export * from './stored-llm-config';
export * from './provider-keys.repository';
export * from './chain.repository';
export * from './provider-keys.service';
export * from './chain.service';
export * from './llm-catalog.service';
export * from './llm.module';
export * from './dto/provider-key.dto';
export * from './dto/catalog.dto';
export * from './dto/chain.dto';
export * from './models';
