import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerObject } from '../../src/graphql/answer-object.js';
import { builder } from '../../src/graphql/builder.js';
import { defineMutation, defineQuery, type Operation } from '../../src/graphql/operation.js';
import { restRoutesOf } from '../../rest-shim/derive.js';

// Declared outside defineOperations (nothing is added to the GraphQL schema): restRoutesOf reads the declaration alone.
const named = (name: string, operation: Operation) => ({ [name]: Object.assign(operation, { name }) });
const ping = z.object({ pong: z.boolean(), at: z.string() }).meta({ id: 'RowDefaultsPing' });
const PingRef = answerObject<{ pong: boolean; at: string }>('RowDefaultsPing', ping);

describe('a declared REST row', () => {
  it("takes its method and path from its route, and the kind from defineQuery or defineMutation", () => {
    const [read] = restRoutesOf(named('ping', defineQuery({ key: null, output: PingRef, run: () => ({ pong: true, at: '' }), rest: { route: 'GET /api/ping/:id', summary: 'Ping' } })));
    expect(read).toMatchObject({ method: 'GET', path: '/api/ping/:id' });
    const mutation = named('pingAgain', defineMutation({ key: null, output: PingRef, run: () => ({ pong: true, at: '' }), rest: { route: 'POST /api/ping', summary: 'Ping' } }));
    expect(mutation.pingAgain!.kind).toBe('mutation');
    expect(restRoutesOf(mutation)[0]).toMatchObject({ method: 'POST', path: '/api/ping' });
  });

  it('answers the answer its output type was made from when it names none, and the one it names otherwise', () => {
    const other = z.object({ pong: z.boolean() });
    const [given] = restRoutesOf(named('ping', defineQuery({ key: null, output: PingRef, run: () => ({ pong: true, at: '' }), rest: { route: 'GET /api/ping', summary: 'Ping', response: other } })));
    const [defaulted] = restRoutesOf(named('ping', defineQuery({ key: null, output: PingRef, run: () => ({ pong: true, at: '' }), rest: { route: 'GET /api/ping', summary: 'Ping' } })));
    expect(given!.response).toBe(other);
    expect(defaulted!.response).toBe(ping);
  });

  it('is refused, naming the operation and route, when neither it nor its output type has an answer', () => {
    const Bare = builder.objectRef<{ pong: boolean }>('RowDefaultsBare').implement({ fields: (t) => ({ pong: t.exposeBoolean('pong') }) });
    const operation = named('bare', defineQuery({ key: null, output: Bare, run: () => ({ pong: true }), rest: { route: 'GET /api/bare', summary: 'Bare' } }));
    expect(() => restRoutesOf(operation)).toThrow(/bare: GET \/api\/bare needs its response/);
  });
});
