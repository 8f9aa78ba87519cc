import type { Lang } from './types.js';

/** Per-language phrase banks for generated activities: real translations, not lorem ipsum. */
type Tr = Record<Lang, string>;

export interface Kind {
  code: string;
  /** Category ids from fixtures/catalog/taxonomy.json. */
  categories: number[];
  /** Whether the title names a venue (else the city). */
  venue: boolean;
  title: Tr;
}

export const KINDS: Kind[] = [
  { code: 'ticket', categories: [2, 7], venue: true, title: { en: 'Skip-the-line ticket: {x}', it: 'Biglietto salta fila: {x}', de: 'Ticket ohne Anstehen: {x}', fr: 'Billet coupe-file : {x}', es: 'Entrada sin colas: {x}' } },
  { code: 'guided', categories: [2, 8], venue: true, title: { en: 'Guided tour of {x}', it: 'Visita guidata: {x}', de: 'Führung: {x}', fr: 'Visite guidée : {x}', es: 'Visita guiada: {x}' } },
  { code: 'walking', categories: [3, 9], venue: false, title: { en: '{x} walking tour', it: 'Tour a piedi di {x}', de: 'Stadtrundgang durch {x}', fr: 'Visite à pied de {x}', es: 'Tour a pie por {x}' } },
  { code: 'food', categories: [4], venue: false, title: { en: '{x} food tour', it: 'Tour gastronomico di {x}', de: 'Kulinarische Tour durch {x}', fr: 'Visite gastronomique de {x}', es: 'Tour gastronómico por {x}' } },
  { code: 'boat', categories: [3, 10], venue: false, title: { en: '{x} sightseeing cruise', it: 'Crociera panoramica a {x}', de: 'Sightseeing-Bootsfahrt in {x}', fr: 'Croisière touristique à {x}', es: 'Crucero turístico por {x}' } },
  { code: 'cooking', categories: [4, 11], venue: false, title: { en: 'Cooking class in {x}', it: 'Corso di cucina a {x}', de: 'Kochkurs in {x}', fr: 'Cours de cuisine à {x}', es: 'Clase de cocina en {x}' } },
  { code: 'daytrip', categories: [5, 12], venue: false, title: { en: 'Day trip from {x}', it: 'Gita di un giorno da {x}', de: 'Tagesausflug ab {x}', fr: "Excursion d'une journée au départ de {x}", es: 'Excursión de un día desde {x}' } },
  { code: 'show', categories: [6], venue: false, title: { en: 'Evening show in {x}', it: 'Spettacolo serale a {x}', de: 'Abendshow in {x}', fr: 'Spectacle du soir à {x}', es: 'Espectáculo nocturno en {x}' } },
  { code: 'pass', categories: [1], venue: false, title: { en: '{x} city pass', it: 'City pass di {x}', de: '{x} City Pass', fr: 'City pass de {x}', es: 'City pass de {x}' } },
  { code: 'golf', categories: [5, 13], venue: false, title: { en: 'Golf day near {x}', it: 'Giornata di golf vicino a {x}', de: 'Golftag bei {x}', fr: 'Journée de golf près de {x}', es: 'Día de golf cerca de {x}' } },
];

export const VARIANTS: Tr[] = [
  { en: 'Classic', it: 'Classico', de: 'Klassisch', fr: 'Classique', es: 'Clásico' },
  { en: 'Premium', it: 'Premium', de: 'Premium', fr: 'Premium', es: 'Premium' },
  { en: 'Early morning', it: 'Mattina presto', de: 'Frühmorgens', fr: 'Tôt le matin', es: 'Por la mañana temprano' },
  { en: 'Sunset', it: 'Al tramonto', de: 'Bei Sonnenuntergang', fr: 'Au coucher du soleil', es: 'Al atardecer' },
  { en: 'Small group', it: 'Piccolo gruppo', de: 'Kleingruppe', fr: 'Petit groupe', es: 'Grupo reducido' },
  { en: 'Private', it: 'Privato', de: 'Privat', fr: 'Privé', es: 'Privado' },
  { en: 'Family', it: 'Per famiglie', de: 'Für Familien', fr: 'En famille', es: 'En familia' },
  { en: 'Express', it: 'Express', de: 'Express', fr: 'Express', es: 'Exprés' },
];

export const ABOUT: Tr = {
  en: '{t}. Spend {d} with a local expert and see the best of {c}. Tickets are sent by e-mail right after booking.',
  it: '{t}. Trascorri {d} con un esperto locale e scopri il meglio di {c}. I biglietti arrivano via e-mail subito dopo la prenotazione.',
  de: '{t}. Verbringe {d} mit einem lokalen Experten und erlebe das Beste von {c}. Die Tickets kommen direkt nach der Buchung per E-Mail.',
  fr: "{t}. Passez {d} avec un expert local et découvrez le meilleur de {c}. Les billets sont envoyés par e-mail dès la réservation.",
  es: '{t}. Pasa {d} con un experto local y descubre lo mejor de {c}. Las entradas llegan por correo electrónico justo después de reservar.',
};

export const HOURS: Tr = { en: '{n} hours', it: '{n} ore', de: '{n} Stunden', fr: '{n} heures', es: '{n} horas' };

export const HIGHLIGHTS: Tr[] = [
  { en: 'Skip the ticket line', it: 'Salta la coda alla biglietteria', de: 'Ohne Anstehen an der Kasse', fr: 'Évitez la file aux guichets', es: 'Evita la cola de la taquilla' },
  { en: 'Expert local guide', it: 'Guida locale esperta', de: 'Erfahrener lokaler Guide', fr: 'Guide local expert', es: 'Guía local experto' },
  { en: 'Small groups only', it: 'Solo piccoli gruppi', de: 'Nur kleine Gruppen', fr: 'Petits groupes uniquement', es: 'Solo grupos reducidos' },
  { en: 'Breathtaking views', it: 'Panorami mozzafiato', de: 'Atemberaubende Ausblicke', fr: 'Vues à couper le souffle', es: 'Vistas impresionantes' },
];
export const INCLUDED: Tr[] = [
  { en: 'Entrance ticket', it: "Biglietto d'ingresso", de: 'Eintrittskarte', fr: "Billet d'entrée", es: 'Entrada' },
  { en: 'Professional guide', it: 'Guida professionale', de: 'Professioneller Guide', fr: 'Guide professionnel', es: 'Guía profesional' },
  { en: 'Headsets', it: 'Auricolari', de: 'Kopfhörer', fr: 'Écouteurs', es: 'Auriculares' },
];
export const NOT_INCLUDED: Tr[] = [
  { en: 'Hotel pickup', it: 'Prelievo in hotel', de: 'Abholung vom Hotel', fr: "Prise en charge à l'hôtel", es: 'Recogida en el hotel' },
  { en: 'Food and drinks', it: 'Cibo e bevande', de: 'Essen und Getränke', fr: 'Nourriture et boissons', es: 'Comida y bebidas' },
  { en: 'Gratuities', it: 'Mance', de: 'Trinkgelder', fr: 'Pourboires', es: 'Propinas' },
];
export const INFO: Tr = {
  en: '<p>Bring a valid ID. Comfortable shoes are recommended.</p>',
  it: '<p>Porta un documento valido. Si consigliano scarpe comode.</p>',
  de: '<p>Bitte einen gültigen Ausweis mitbringen. Bequeme Schuhe werden empfohlen.</p>',
  fr: "<p>Munissez-vous d'une pièce d'identité. Des chaussures confortables sont conseillées.</p>",
  es: '<p>Lleva un documento válido. Se recomienda calzado cómodo.</p>',
};
export const MEETING: Tr = {
  en: 'Meet your guide at the main entrance of {x}, 15 minutes before the start.',
  it: "Incontra la guida all'ingresso principale di {x}, 15 minuti prima dell'inizio.",
  de: 'Treffpunkt ist der Haupteingang von {x}, 15 Minuten vor Beginn.',
  fr: "Rendez-vous à l'entrée principale de {x}, 15 minutes avant le début.",
  es: 'Encuentra al guía en la entrada principal de {x}, 15 minutos antes del inicio.',
};
export const DAYS: Tr = {
  en: '<p>Open {d}</p>', it: '<p>Aperto {d}</p>', de: '<p>Geöffnet {d}</p>', fr: '<p>Ouvert {d}</p>', es: '<p>Abierto {d}</p>',
};
export const EVERY_DAY: Tr = { en: 'every day', it: 'tutti i giorni', de: 'täglich', fr: 'tous les jours', es: 'todos los días' };
export const SOME_DAYS: Tr = { en: 'on selected days', it: 'in giorni selezionati', de: 'an ausgewählten Tagen', fr: 'certains jours', es: 'en días seleccionados' };

export const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w)\}/g, (_, k: string) => values[k] ?? '');
