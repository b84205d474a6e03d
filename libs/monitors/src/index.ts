export { CreateMonitorDto, UpdateMonitorDto, MonitorScheduleDto, MonitorNotifyDto } from './dto/monitor.dto';
export { ListMonitorsQuery, MonitorRunsQuery, MonitorStateQuery, MonitorChangesQuery } from './dto/monitor-query.dto';
export {
  MonitorResponse,
  MonitorListResponse,
  MonitorRunResponse,
  MonitorRunListResponse,
  MonitorRunStartedResponse,
  MonitorChangeListResponse,
  MonitorChangeResponse,
  MonitorStateResponse,
} from './dto/monitor-response.dto';
export { MonitorsService } from './monitors.service';
export { MonitorScheduler } from './monitor-scheduler';
export { MonitorClock } from './monitor-clock';
export { MonitorPagesService, conditionalHeaders, textHash, type PageMemory, type PageObservation } from './monitor-pages.service';
export { MonitorsModule, MonitorPagesModule } from './monitors.module';
export { MonitorListJobs, type CheckedUrlList, type ListRunRequest } from './monitor-list-jobs';
export { CHANGE_KINDS, NOTIFY_KINDS, type ChangeKind } from './monitor.types';
export { diffRecords } from './diff';
export type { FieldChange } from './monitor.types';
