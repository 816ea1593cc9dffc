// What a URL says about the file behind it, before anything is fetched: not an image at all (a
// video file, a known tracking endpoint), a placeholder (spacer, spinner, blank), or an icon.
import { words } from './html-values.js';

// Placeholder URLs: a tracking host (pixel.wp.example), a tracking folder (/beacon/open.gif), a file
// named like a loader or a blank (ajax-loader.gif, img-placeholder.png), or a classic spacer name
// that is an ordinary word elsewhere and so counts only as the whole file name (clear.gif, 1x1.gif;
// "crystal-clear-sea.jpg", "pixel-8-review.jpg" and a recipe's "tart-1x1.jpg" are photos).
const PLACEHOLDER_HOST_WORDS = / (pixel|pixels|tracking|tracker|beacon|beacons) /;
const PLACEHOLDER_FOLDER_WORDS = / (pixel|tracking|tracker|beacon) /;
const PLACEHOLDER_FILE_WORDS = / (spinner|spinners|loader|loading|spacer|placeholder|blank|transparent) /;
const PLACEHOLDER_FILE = /^(clear|dot|empty|grey|gray|px|pixel|trans|shim|1x1|s|b|t)\.(gif|png)$/;
export const PLACEHOLDER_CLASS_WORDS = / (spinner|loader|spacer|tracking|tracker|pixel|beacon) /;
export const ICON_WORDS = / (logo|logos|icon|icons|favicon|favicons|avatar|avatars|gravatar|emoji|emojis|emoticon|badge|badges|sprite|sprites) /;

/** Video and streaming files by extension (sites put an .mp4 in og:image). */
export const VIDEO_FILE = /\.(mp4|m4v|mov|webm|ogv|ogg|mkv|avi|wmv|flv|3gp|mpe?g|m3u8|mpd|ts)$/i;

/**
 * Known tracking endpoints (analytics and ad beacons answer a 1x1 image): a host, or a host and a
 * path prefix. Hosts match themselves and their subdomains. The list is in docs/rest-api.md "Routes" (featured-image candidates).
 */
export const TRACKING_ENDPOINTS: ReadonlyArray<{ host: string; path?: string }> = [
  { host: 'facebook.com', path: '/tr' },
  { host: 'facebook.net' },
  { host: 'google-analytics.com' },
  { host: 'analytics.google.com' },
  { host: 'googletagmanager.com' },
  { host: 'doubleclick.net' },
  { host: 'googlesyndication.com' },
  { host: 'googleadservices.com' },
  { host: 'google.com', path: '/ads/' },
  { host: 'google.com', path: '/pagead/' },
  { host: 'scorecardresearch.com' },
  { host: 'quantserve.com' },
  { host: 'quantcount.com' },
  { host: 'bat.bing.com' },
  { host: 'analytics.twitter.com' },
  { host: 't.co', path: '/i/adsct' },
  { host: 'ads.linkedin.com' },
  { host: 'ct.pinterest.com' },
  { host: 'analytics.tiktok.com' },
  { host: 'mc.yandex.ru' },
  { host: 'counter.yadro.ru' },
  { host: 'statcounter.com' },
  { host: 'stats.wp.com' },
  { host: 'pixel.wp.com' },
  { host: 'hotjar.com' },
  { host: 'adnxs.com' },
  { host: 'mathtag.com' },
  { host: 'bluekai.com' },
  { host: 'demdex.net' },
  { host: 'omtrdc.net' },
  { host: 'chartbeat.net' },
  { host: 'chartbeat.com', path: '/ping' },
  { host: 'parsely.com', path: '/plogger' },
  { host: 'outbrain.com', path: '/pixel' },
  { host: 'taboola.com', path: '/sg/' },
  { host: 'criteo.com' },
  { host: 'criteo.net' },
  { host: 'amazon-adsystem.com' },
  { host: 'adsrvr.org' },
  { host: 'rlcdn.com' },
  { host: 'krxd.net' },
];
/**
 * Tracking paths on any host: Google Analytics' collect and __utm.gif, Adobe's /b/ss/, and beacon,
 * pixel, track and impression endpoints without a file extension (a photo named track.jpg stays).
 */
const TRACKING_PATH = /^\/(?:(?:[\w.-]+\/)*(?:collect|beacon|pixel|track|impression|imp|__utm\.gif)|b\/ss\/.*)$/i;

function isTrackingEndpoint(url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const path = url.pathname;
  for (const entry of TRACKING_ENDPOINTS) {
    if (host !== entry.host && !host.endsWith(`.${entry.host}`)) continue;
    if (!entry.path || path === entry.path || path.startsWith(entry.path.endsWith('/') ? entry.path : `${entry.path}/`) || path.startsWith(`${entry.path}?`)) return true;
  }
  return TRACKING_PATH.test(path);
}

/** A file name with an image extension (the extensions the regex sweep looks for). */
export const IMAGE_FILE = /\.(jpe?g|png|webp|gif|avif)$/i;

export interface UrlScreening {
  placeholder: boolean;
  /** A video file or a known tracking endpoint: refused from every source, the site's own meta tags included. */
  notAnImage: boolean;
  /** A logo, icon, avatar ... by name, or an SVG or ICO file (photos are not SVGs). */
  icon: boolean;
}

export function screenUrl(url: URL): UrlScreening {
  const slash = url.pathname.lastIndexOf('/');
  const file = url.pathname.slice(slash + 1);
  // Hosts and folders repeat across a page's images, so their words come from the memo.
  const fileWords = words(file);
  const folderWords = words(url.pathname.slice(0, slash));
  const hostWords = words(url.hostname);
  return {
    notAnImage: VIDEO_FILE.test(file) || isTrackingEndpoint(url),
    placeholder:
      PLACEHOLDER_FILE.test(file.toLowerCase()) || PLACEHOLDER_FILE_WORDS.test(fileWords) || PLACEHOLDER_HOST_WORDS.test(hostWords) || PLACEHOLDER_FOLDER_WORDS.test(folderWords),
    icon: /\.(svg|ico)$/i.test(file) || ICON_WORDS.test(fileWords) || ICON_WORDS.test(folderWords) || ICON_WORDS.test(hostWords),
  };
}
