// Public surface of the jobs module: what other modules use of it (a lint rule keeps them to it).
export { JOB_STATES } from './jobs.service.js';
export { type JobHandler } from './job-runner.js';
export { type Job, type JobProgress, JobsService, jobFilesPrefix } from './jobs.service.js';
export { JobFilesService } from './job-files.service.js';
export { JobRunner } from './job-runner.js';
export { setupJobs } from './jobs.setup.js';
export { queuedJobAnswer } from './queued-job.js';
