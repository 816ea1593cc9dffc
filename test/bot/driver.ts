// Updates as Telegram sends them, for driving the bot through the fake Bot API (getUpdates) or its
// webhook: a command message (with its bot_command entity), a photo with a caption, a button press.
let messageId = 50_000;

export interface Chat {
  id: number;
  type: 'private' | 'group';
}

export const privateChat = (userId: number): Chat => ({ id: userId, type: 'private' });
export const GROUP: Chat = { id: -100_777, type: 'group' };

const user = (id: number) => ({ id, is_bot: false, first_name: `User ${id}`, username: `user${id}` });

/** What every message from a user carries: its id, date, chat and sender. */
const envelope = (userId: number, chat: Chat) => ({
  message_id: ++messageId,
  date: Math.floor(Date.now() / 1000),
  chat: chat.type === 'private' ? { ...chat, first_name: `User ${userId}` } : { ...chat, title: 'A group' },
  from: user(userId),
});

/** A text message; a leading /command gets its bot_command entity (what grammY's command filter reads). */
export function textMessage(userId: number, text: string, chat: Chat = privateChat(userId), extra: Record<string, unknown> = {}) {
  const command = /^\/[A-Za-z_]+(@\w+)?/.exec(text);
  return {
    message: {
      ...envelope(userId, chat),
      text,
      ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
      ...extra,
    },
  };
}

/** A photo (a file of the fake's) with a caption. */
export function photoMessage(userId: number, fileId: string, size: number, caption: string, chat: Chat = privateChat(userId)) {
  return {
    message: {
      ...envelope(userId, chat),
      photo: [
        { file_id: `${fileId}-thumb`, file_unique_id: `${fileId}-t`, width: 90, height: 67, file_size: 1000 },
        { file_id: fileId, file_unique_id: `${fileId}-u`, width: 800, height: 600, file_size: size },
      ],
      caption,
      caption_entities: [{ type: 'bot_command', offset: 0, length: caption.split(/\s/)[0]!.length }],
    },
  };
}

/** A press on an inline button of a message the bot sent to the user. */
export function buttonPress(userId: number, data: string, chat: Chat = privateChat(userId)) {
  return {
    callback_query: {
      id: `cb-${++messageId}`,
      from: user(userId),
      chat_instance: `ci-${chat.id}`,
      data,
      message: { message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat, text: 'buttons' },
    },
  };
}
