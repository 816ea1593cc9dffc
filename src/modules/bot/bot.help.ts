// What the bot tells people about its commands. A leaf file (no grammY), so the module's public
// surface names them without loading grammY, which only a process running the bot needs.

export const NOT_LINKED =
  'This Telegram account is not linked to an account of the service yet.\n' +
  'Ask for a one-time code with your master key: POST /api/platform/bot-link (header X-API-Key), then send here: /start <code>';

export const HELP = [
  'Commands:',
  '/start <code> - link this Telegram account to your service account (code from POST /api/platform/bot-link)',
  '/connect [partner_account] - link your account at the credit partner (coin bridge)',
  '/scrape <url> - start a scrape job; I tell you here when it ends',
  '/generate <prompt> - generate images',
  '/search <text> - search images; or send a photo with the caption /search (reverse search)',
  '/verify - wiki photos waiting for votes, with confirm and reject buttons (votes pay coins)',
  '/wiki <slug> [photo_type] - as the caption of a photo (or a reply to one): contribute it to a wiki subject',
  '/policy <image_id> <open|restricted|locked> - the intel policy of your community image',
  '/proposals <image_id> - pending intel proposals of an image',
  '/resolve <proposal_id> approve|reject - decide a proposal on your image',
  '/library - your recent media items',
  '/balance - coins and credits',
  '/api_key [rotate] - your API key (private chat only)',
  '/unlink - unlink this Telegram account',
  '/help - this list',
].join('\n');

/** The commands as Telegram lists them (setMyCommands). */
export const COMMAND_LIST = HELP.split('\n')
  .slice(1)
  .map((line) => {
    const [usage, description] = line.split(' - ');
    return { command: usage!.slice(1).split(' ')[0]!, description: description!.slice(0, 256) };
  });
