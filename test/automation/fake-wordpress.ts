// A fake WordPress site on 127.0.0.1 that answers the REST API's media routes the way WordPress
// does (wp-includes/rest-api/endpoints/class-wp-rest-attachments-controller.php): Basic
// authentication with application passwords, POST /wp-json/wp/v2/media with the file as the raw
// body (Content-Disposition filename, Content-Type) and title, alt_text and caption among the
// request's parameters, POST /wp-json/wp/v2/media/<id> to update, and errors in WordPress's shape
// {"code", "message", "data": {"status"}} (an HTML 413 from the web server for an oversized body).
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WpMedia {
  id: number;
  filename: string;
  mime: string;
  sha256: string;
  bytes: number;
  title: string;
  alt_text: string;
  caption: string;
  author: string;
}

export interface WpRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  bytes: number;
  status: number;
}

export interface FakeWordPress {
  url: string;
  requests: WpRequest[];
  media: Map<number, WpMedia>;
  /** user -> application password; users in `cannotUpload` are authors without upload_files. */
  users: Map<string, string>;
  cannotUpload: Set<string>;
  /** Largest body the web server takes (nginx's client_max_body_size): larger ones get an HTML 413. */
  maxBodyBytes: number;
  /** Answers the next requests with these (status, headers, JSON body) before the real handling. */
  failNext(answers: Array<{ status: number; headers?: Record<string, string>; body?: unknown }>): void;
  /** Drops title, alt_text and caption of uploads (as a plugin filtering the request might). */
  ignoreUploadParameters: boolean;
  /** Uploads answer this WordPress error whoever asks (a security plugin refusing REST uploads). */
  uploadRefusal: { status: number; code: string; message: string } | null;
  close(): Promise<void>;
}

const wpError = (code: string, message: string, status: number) => ({ code, message, data: { status } });

export async function startFakeWordPress(): Promise<FakeWordPress> {
  const requests: WpRequest[] = [];
  const media = new Map<number, WpMedia>();
  const injected: Array<{ status: number; headers?: Record<string, string>; body?: unknown }> = [];
  let nextId = 100;

  const fake = {
    requests,
    media,
    users: new Map<string, string>(),
    cannotUpload: new Set<string>(),
    maxBodyBytes: 50 * 1024 * 1024,
    ignoreUploadParameters: false,
    uploadRefusal: null,
  } as FakeWordPress;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= fake.maxBodyBytes) chunks.push(chunk);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', fake.url);
      const query = Object.fromEntries(url.searchParams);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        requests.push({ method: req.method ?? '', path: url.pathname, query, headers: req.headers, bytes, status });
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/html' : 'application/json; charset=UTF-8', ...headers }).end(text);
      };
      const planned = injected.shift();
      if (planned) return send(planned.status, planned.body ?? wpError('fake_failure', 'injected', planned.status), planned.headers);
      if (bytes > fake.maxBodyBytes) return send(413, '<html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity Too Large</h1></center><hr><center>nginx</center></body></html>');

      const user = authenticate(req.headers.authorization, fake.users);
      if (user === 'bad') return send(401, wpError('incorrect_password', 'The provided password is an invalid application password.', 401));
      const body = Buffer.concat(chunks);
      const mediaPath = /^\/wp-json\/wp\/v2\/media\/?$/;
      const onePath = /^\/wp-json\/wp\/v2\/media\/(\d+)\/?$/;

      if (req.method === 'GET' && url.pathname === '/wp-json/wp/v2/users/me') {
        if (!user) return send(401, wpError('rest_not_logged_in', 'You are not currently logged in.', 401));
        const me: Record<string, unknown> = { id: 1, name: user, slug: user };
        if (query.context === 'edit') me.capabilities = { read: true, upload_files: !fake.cannotUpload.has(user), edit_posts: true };
        return send(200, me);
      }

      if (req.method === 'POST' && mediaPath.test(url.pathname)) {
        if (!user) return send(401, wpError('rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.', 401));
        if (fake.uploadRefusal) return send(fake.uploadRefusal.status, wpError(fake.uploadRefusal.code, fake.uploadRefusal.message, fake.uploadRefusal.status));
        if (fake.cannotUpload.has(user)) return send(403, wpError('rest_cannot_create', 'Sorry, you are not allowed to upload media on this site.', 403));
        if (body.length === 0) return send(400, wpError('rest_upload_no_data', 'No data supplied.', 400));
        const type = req.headers['content-type'];
        if (!type) return send(400, wpError('rest_upload_no_content_type', 'No Content-Type supplied.', 400));
        const disposition = req.headers['content-disposition'];
        const filename = disposition ? /filename="?([^";]+)"?/i.exec(disposition)?.[1] : undefined;
        if (!filename) return send(400, wpError('rest_upload_no_content_disposition', 'No Content-Disposition supplied.', 400));
        const params = fake.ignoreUploadParameters ? {} : query;
        const item: WpMedia = {
          id: nextId++,
          filename,
          mime: type,
          sha256: createHash('sha256').update(body).digest('hex'),
          bytes: body.length,
          // WordPress's default title is the file name without its extension.
          title: params.title ?? filename.replace(/\.[^.]+$/, ''),
          alt_text: params.alt_text ?? '',
          caption: params.caption ?? '',
          author: user,
        };
        media.set(item.id, item);
        return send(201, attachment(item, fake.url), { Location: `${fake.url}/wp-json/wp/v2/media/${item.id}` });
      }
      const one = onePath.exec(url.pathname);
      if (req.method === 'POST' && one) {
        if (!user) return send(401, wpError('rest_cannot_edit', 'Sorry, you are not allowed to edit this post.', 401));
        const item = media.get(Number(one[1]));
        if (!item) return send(404, wpError('rest_post_invalid_id', 'Invalid post ID.', 404));
        let json: Record<string, string> = {};
        try {
          json = JSON.parse(body.toString('utf8') || '{}');
        } catch {
          return send(400, wpError('rest_invalid_json', 'Invalid JSON body passed.', 400));
        }
        for (const field of ['title', 'alt_text', 'caption'] as const) if (typeof json[field] === 'string') item[field] = json[field];
        return send(200, attachment(item, fake.url));
      }
      return send(404, wpError('rest_no_route', 'No route was found matching the URL and request method.', 404));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.failNext = (answers) => void injected.push(...answers);
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}

/** The user the Basic credentials name, 'bad' for a wrong password, null without credentials. */
function authenticate(header: string | undefined, users: Map<string, string>): string | null {
  if (!header?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = decoded.slice(0, colon);
  // Application passwords are accepted with or without their spaces.
  const password = decoded.slice(colon + 1).replace(/ /g, '');
  return users.get(user)?.replace(/ /g, '') === password ? user : 'bad';
}

/** An attachment in the edit context, as create and update answer it. */
function attachment(item: WpMedia, base: string) {
  const source = `${base}/wp-content/uploads/2026/11/${item.filename}`;
  return {
    id: item.id,
    date: '2026-11-24T12:00:00',
    slug: item.filename.replace(/\.[^.]+$/, '').toLowerCase(),
    status: 'inherit',
    type: 'attachment',
    link: `${base}/?attachment_id=${item.id}`,
    title: { raw: item.title, rendered: item.title },
    author: 1,
    alt_text: item.alt_text,
    caption: { raw: item.caption, rendered: item.caption ? `<p>${item.caption}</p>\n` : '' },
    description: { raw: '', rendered: '' },
    media_type: item.mime.startsWith('image/') ? 'image' : 'file',
    mime_type: item.mime,
    media_details: { filesize: item.bytes, sizes: {} },
    post: null,
    source_url: source,
  };
}
