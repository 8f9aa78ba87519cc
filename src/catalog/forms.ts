import type { FormFieldRecord } from '../seed/types.js';
import { tr } from './text.js';

/** A JSON Schema object as the API's form endpoints return it. */
export interface FormSchema {
  title: string;
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
}

/** JSON Schema properties for form fields, with the API's propertyOrder. */
export function formSchema(title: string, fields: readonly FormFieldRecord[], lang: string): FormSchema {
  const properties: FormSchema['properties'] = {};
  fields.forEach((f, i) => {
    properties[f.name] = {
      type: f.type,
      title: tr(f.title, lang),
      propertyOrder: i + 1,
      ...(f.format ? { format: f.format } : {}),
      ...(f.enum ? { enum: f.enum } : {}),
    };
  });
  return { title, type: 'object', properties, required: fields.filter((f) => f.required).map((f) => f.name) };
}

/** The participants schema: one object per unit of quantity (open-ended for the activity preview). */
export function participantsSchema(fields: readonly FormFieldRecord[], lang: string, quantity?: number) {
  const prototype = formSchema('prototype', fields, lang);
  return {
    title: 'cart_item_participants_info',
    type: 'object' as const,
    properties: {
      participants: {
        type: 'array',
        items: prototype,
        ...(quantity !== undefined ? { minItems: quantity, maxItems: quantity } : {}),
      },
    },
    required: ['participants'],
  };
}
