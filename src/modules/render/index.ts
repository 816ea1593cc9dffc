// Public surface of the render module: pages loaded in headless Chromium (a lint rule keeps other modules to it).
export { BrowserUnavailable, Renderer, RenderSession, type FetchedImage, type RenderedPage, type RenderRequest, type RendererOptions } from './render.browser.js';
export type { RenderAuto, RenderBudget, RenderConfig } from './render.settings.js';
export { setupRender } from './render.setup.js';
