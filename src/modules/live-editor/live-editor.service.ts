// GET /api/live-editor/status: the editor is announced as upcoming (spec "Live editor").
export interface LiveEditorStatus {
  available: boolean;
  message: string;
  features: string[];
}

export function liveEditorStatus(): LiveEditorStatus {
  return {
    available: false,
    message: 'The live image editor is coming soon; the features below are planned.',
    features: ['crop and resize', 'filters and adjustments', 'text overlays', 'watermark placement', 'background removal', 'export to the media library'],
  };
}
