/**
 * Where the explorer is: the browser's own URL, so every view can be shared and bookmarked.
 * The server answers every explorer path with the same page (src/http/explorer.ts).
 */
import { useEffect, useState } from 'preact/hooks';

const CHANGE = 'explorer:navigate';

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
}

/** The current URL; re-renders on every navigation (links, forms, back and forward). */
export function useLocation(): URL {
  const [url, setUrl] = useState(() => new URL(location.href));
  useEffect(() => {
    const update = () => setUrl(new URL(location.href));
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return url;
}

/** A click on an explorer link navigates in place (a modified click still opens a new tab). */
export function follow(event: MouseEvent): void {
  const link = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const target = new URL(link.href);
  if (target.origin !== location.origin || target.pathname.startsWith('/rest/') || target.pathname.startsWith('/docs')) return;
  event.preventDefault();
  navigate(target.pathname + target.search);
}
