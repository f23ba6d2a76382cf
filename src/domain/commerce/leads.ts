import type { Db } from '../../store/db.js';
import { enqueueEmail } from './outbox.js';

export interface LeadInput {
  email: string;
  name?: string | null;
  company?: string | null;
  message?: string | null;
  plan_interest?: string | null;
  source?: string | null;
}

export interface LeadRow {
  id: string;
  email: string;
  name: string | null;
  company: string | null;
  plan_interest: string | null;
  created_at: Date;
}

/** Stores the lead and queues the sales-inbox notification in the same transaction (nothing lost). */
export async function createLead(db: Db, userId: string | null, input: LeadInput, salesInbox: string): Promise<{ lead: LeadRow; outboxId: string }> {
  return db.transaction(async (tx) => {
    const [lead] = await tx.query<LeadRow>(
      `insert into leads (user_id, email, name, company, message, plan_interest, source)
       values ($1, $2, $3, $4, $5, $6, $7) returning id, email, name, company, plan_interest, created_at`,
      [userId, input.email, input.name ?? null, input.company ?? null, input.message ?? null, input.plan_interest ?? null, input.source ?? null],
    );
    const lines = [
      `New lead ${lead!.id}`,
      `Email: ${input.email}`,
      input.name ? `Name: ${input.name}` : null,
      input.company ? `Company: ${input.company}` : null,
      input.plan_interest ? `Plan interest: ${input.plan_interest}` : null,
      input.source ? `Source: ${input.source}` : null,
      input.message ? `\n${input.message}` : null,
    ].filter((l): l is string => l !== null);
    const outboxId = await enqueueEmail(tx, {
      to: salesInbox,
      subject: `New lead: ${input.company ?? input.name ?? input.email}`,
      text: lines.join('\n'),
    });
    return { lead: lead!, outboxId };
  });
}
