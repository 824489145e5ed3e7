/**
 * The part of pdfmake's server API used here. (@types/pdfmake pulls the DOM library into the
 * whole program, which changes the types of Node's own fetch.)
 */
declare module 'pdfmake' {
  export type Content = Record<string, unknown> | string;
  export interface FontFiles {
    normal: string;
    bold: string;
    italics: string;
    bolditalics: string;
  }
  export interface NodeQueries {
    getFollowingNodesOnPage(): unknown[];
  }
  export interface DocumentDefinition {
    info?: Record<string, string>;
    pageSize?: string;
    pageOrientation?: 'portrait' | 'landscape';
    pageMargins?: [number, number, number, number];
    defaultStyle?: Record<string, unknown>;
    content: Content[];
    pageBreakBefore?: (node: { headlineLevel?: number }, queries: NodeQueries) => boolean;
    footer?: (page: number, pages: number) => Content;
  }
  const pdfmake: {
    fonts: Record<string, FontFiles>;
    setFonts(fonts: Record<string, FontFiles>): void;
    setUrlAccessPolicy(allow: (url: string) => boolean): void;
    setLocalAccessPolicy(allow: (path: string) => boolean): void;
    createPdf(definition: DocumentDefinition): { getBuffer(): Promise<Buffer> };
  };
  export default pdfmake;
}
