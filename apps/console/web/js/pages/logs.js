import { api } from '../api.js';
import { pageHeader } from './common.js';
import { logView } from './log-view.js';

export async function logsPage({ query }) {
  const [{ keys }, { groups }] = await Promise.all([api.get('/api/keys'), api.get('/api/groups')]);
  const models = [...new Set(groups.flatMap((g) => g.models))].sort();
  return [
    pageHeader('Logs', 'Every request made with your keys, newest first. Bodies are never stored.'),
    await logView({ source: '/api/logs', pagePath: '/logs', detailPath: '/logs', query, models, keys }),
  ];
}
