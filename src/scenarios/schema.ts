import { Type, type Static } from 'typebox';
import { ORDER_ITEM_STATUSES } from '../lifecycle/order-item-status.js';
import { ChaosSchema } from '../webhooks/chaos.js';

/**
 * The scenario file format (scenarios/README.md). Durations and moves are checked after the schema
 * (loader.ts), so every message can point at the field with a JSON pointer.
 */
const Status = Type.Enum([...ORDER_ITEM_STATUSES], { description: 'an order-item status' });

export const StepSchema = Type.Object(
  {
    after: Type.String({ description: 'ISO 8601 duration after the previous step (the first: after the run starts)' }),
    status: Type.Optional(Status),
    receiver: Type.Optional(Type.Enum(['down', 'up'], { description: 'the webhook receiver goes down or comes back' })),
    chaos: Type.Optional(ChaosSchema),
  },
  { additionalProperties: false },
);

export const AttachSchema = Type.Object(
  {
    activity_uuid: Type.Optional(Type.String({ minLength: 1 })),
    product_id: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Integer()])),
    lead_booker_email: Type.Optional(Type.String({ minLength: 3 })),
    on: Type.Optional(Type.Enum(['payment', 'cancellation'], { description: 'when the scenario starts: default payment' })),
  },
  { additionalProperties: false },
);

export const ScenarioFileSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', maxLength: 64 }),
    description: Type.String({ minLength: 1 }),
    from: Type.Optional(Status),
    attach: Type.Optional(AttachSchema),
    steps: Type.Array(StepSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type ScenarioFile = Static<typeof ScenarioFileSchema>;
