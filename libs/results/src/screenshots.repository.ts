import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DOCUMENT_STORE, type Collection, type DocumentStore } from '@app/storage';

/** A stored screenshot: the PNG as base64 (both stores keep JSON documents), with its size. */
export interface ScreenshotRecord {
  _id: string;
  job_id: string;
  user_id: string;
  content_type: 'image/png';
  width: number;
  height: number;
  bytes: number;
  data_base64: string;
  created_at: string;
  [key: string]: unknown;
}

/** The only code that touches stored screenshots; reads by the owner, or by id for signed links. */
@Injectable()
export class ScreenshotsRepository implements OnModuleInit {
  private screenshots!: Collection<ScreenshotRecord>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async onModuleInit(): Promise<void> {
    this.screenshots = await this.store.collection<ScreenshotRecord>({ name: 'screenshots', indexes: [{ fields: { job_id: 1 } }] });
  }

  /** Stores it unless one with this `_id` exists (a job run again after a crash stores its page's screenshot once). */
  async insertOnce(record: ScreenshotRecord): Promise<void> {
    if (await this.screenshots.findOne({ _id: record._id })) return;
    await this.screenshots.replaceOne(record);
  }

  findOwn(userId: string, jobId: string, id: string): Promise<ScreenshotRecord | null> {
    return this.screenshots.findOne({ _id: id, job_id: jobId, user_id: userId });
  }

  async deleteJob(jobId: string): Promise<void> {
    await this.screenshots.deleteMany({ job_id: jobId });
  }

  findById(id: string): Promise<ScreenshotRecord | null> {
    return this.screenshots.findOne({ _id: id });
  }
}
