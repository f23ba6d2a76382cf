import nodemailer from 'nodemailer';
import type { Queryable } from '../store/db.js';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Delivers one message; throws on failure (the outbox sender retries with back-off). */
export interface EmailProvider {
  readonly name: 'smtp' | 'local';
  send(message: EmailMessage, outboxId: string): Promise<void>;
  close(): Promise<void>;
}

/** SMTP through nodemailer (SMTP_URL, e.g. smtps://user:pass@smtp.example.com:465). */
export function smtpProvider(url: string, from: string): EmailProvider {
  const transport = nodemailer.createTransport(url);
  return {
    name: 'smtp',
    async send(message, outboxId) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text, messageId: `<${outboxId}@gc.outbox>` });
    },
    async close() {
      transport.close();
    },
  };
}

/** The local default: deliveries are recorded in email_deliveries (idempotent per outbox row). */
export function localEmailProvider(db: Queryable): EmailProvider {
  return {
    name: 'local',
    async send(message, outboxId) {
      await db.query(
        `insert into email_deliveries (outbox_id, recipient, subject, body) values ($1, $2, $3, $4)
         on conflict (outbox_id) do nothing`,
        [outboxId, message.to, message.subject, message.text],
      );
    },
    async close() {},
  };
}
