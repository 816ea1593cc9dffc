// Assembles the schema from every module's schema file (imported for their side effects).
import { builder } from './builder.js';
import '../modules/accounts/accounts.operations.js';
import '../modules/api-keys/sub-keys.schema.js';
import '../modules/api-keys/api-keys.operations.js';
import '../modules/live-editor/live-editor.operations.js';
import '../modules/search-links/search-links.operations.js';
import '../modules/jobs/jobs.schema.js';
import '../modules/scrape/scrape.operations.js';
import '../modules/automation/automation.operations.js';
import '../modules/featured/featured.operations.js';
import '../modules/vision/vision.operations.js';
import '../modules/media/media.operations.js';
import '../modules/imaging/imaging.operations.js';
import '../modules/collections/collections.operations.js';
import '../modules/stock-lists/stock-lists.operations.js';
import '../modules/ledger/ledger.operations.js';
import '../modules/economy/economy.operations.js';
import '../modules/image-objects/image-objects.schema.js';
import '../modules/community/community.operations.js';
import '../modules/bounties/bounties.operations.js';
import '../modules/wiki/wiki.operations.js';
import '../modules/intel/intel.operations.js';
import '../modules/challenges/challenges.operations.js';
import '../modules/generation/generation.operations.js';
import '../modules/search/search.operations.js';
import '../modules/replaceflow/replaceflow.operations.js';
import '../modules/pipeline/pipeline.operations.js';
import '../modules/mirrors/mirrors.operations.js';
import '../modules/bot/bot.operations.js';

builder.queryField('health', (t) => t.boolean({ description: 'Always true: the GraphQL endpoint answers', resolve: () => true }));

export const schema = builder.toSchema({ sortSchema: true });
