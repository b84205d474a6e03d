import { Module } from '@nestjs/common';
import { AuthModule } from './auth.module';
import { TenantDeletionResumer } from './tenant-deletion-resumer';

/**
 * Finishes tenant deletions that stopped half way. Imported by the API app only: there every lib that keeps
 * something of a tenant has registered its eraser (a process without them must never take a deletion up).
 */
@Module({ imports: [AuthModule], providers: [TenantDeletionResumer] })
export class TenantDeletionModule {}
