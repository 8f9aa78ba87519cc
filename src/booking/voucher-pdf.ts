// pdfkit and qrcode load on the first voucher: together they would add half a second to start-up.
const pdfkit = () => import('pdfkit').then((m) => m.default);
const qrcode = () => import('qrcode').then((m) => m.default);

/** What a voucher shows: the booking, who goes, and a code the venue scans. */
export interface VoucherContent {
  orderIdentifier: string;
  orderUuid: string;
  activityTitle: string;
  date: string;
  tickets: string[];
  leadBooker: string;
  participants: string[];
  meetingPoint: string;
  emergencyPhone: string;
  supplier: string;
  /** Encoded in the QR code. */
  code: string;
}

/** One A4 page per voucher, as a PDF. */
export async function voucherPdf(vouchers: VoucherContent[]): Promise<Buffer> {
  const [PDFDocument, QRCode] = await Promise.all([pdfkit(), qrcode()]);
  // Deterministic bytes: a fixed creation date instead of "now".
  const doc = new PDFDocument({ size: 'A4', margin: 50, compress: false, info: { Title: 'Voucher', Producer: 'mock-server', CreationDate: new Date(0) } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  for (const [i, v] of vouchers.entries()) {
    if (i > 0) doc.addPage();
    doc.fontSize(22).text('Voucher', { continued: false });
    doc.moveDown(0.5).fontSize(12).text(`Booking ${v.orderIdentifier} (${v.orderUuid})`);
    doc.moveDown().fontSize(16).text(v.activityTitle);
    doc.fontSize(12).text(`Date: ${v.date}`);
    doc.text(`Tickets: ${v.tickets.join(', ')}`);
    doc.text(`Lead booker: ${v.leadBooker}`);
    if (v.participants.length) doc.text(`Participants: ${v.participants.join(', ')}`);
    doc.moveDown().text(`Meeting point: ${v.meetingPoint}`);
    doc.text(`Emergency phone: ${v.emergencyPhone}`);
    doc.text(`Provider: ${v.supplier}`);
    const qr = await QRCode.toBuffer(v.code, { type: 'png', margin: 1, width: 180 });
    doc.moveDown().image(qr, { width: 180 });
    doc.fontSize(10).text(v.code);
  }
  doc.end();
  return done;
}

export async function qrDataUrl(code: string): Promise<string> {
  return (await qrcode()).toDataURL(code, { margin: 1, width: 180 });
}
