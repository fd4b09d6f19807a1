import { type FastifyRequest } from 'fastify';
import { REALTIME_PROTOCOL } from '#libs/providers';
import { type ClientSocket, type EdgeRoute, sessionRoute } from '../http/endpoint-kinds.js';

/** What the realtime route calls (RealtimeSessions). */
export interface RealtimeHandler {
  handshake(req: FastifyRequest): Promise<void>;
  serve(req: FastifyRequest, socket: ClientSocket): Promise<void>;
}

/** The sessions service, as the realtime route is given it at boot. */
export interface RealtimeServices {
  readonly realtime: RealtimeHandler;
}

/** `GET /v1/realtime?model=...` with Upgrade: one realtime session per socket (docs/realtime.md). */
export const REALTIME_ROUTES: ReadonlyArray<EdgeRoute<RealtimeServices>> = [
  sessionRoute<RealtimeServices>(
    REALTIME_PROTOCOL.route,
    (services, req) => services.realtime.handshake(req),
    (services, req, socket) => services.realtime.serve(req, socket),
  ),
];
