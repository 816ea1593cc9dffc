// Public surface of the live-editor module.
export { liveEditorStatus, type LiveEditorStatus } from './live-editor.service.js';
