import { useEffect, useRef, useState } from 'react';
import { Box, IconButton, Menu, MenuItem, Tooltip, keyframes } from '@mui/material';
import { useTranslate } from 'react-admin';

/** The spring-festival season new-api celebrates: 1 January and 9 to 24 February (local time). */
export const isFestiveDay = (date: Date): boolean =>
  (date.getMonth() === 0 && date.getDate() === 1) || (date.getMonth() === 1 && date.getDate() >= 9 && date.getDate() <= 24);

export const FIREWORKS_MS = 3000;
export const RELOAD_AFTER_MS = 10000;

const burst = keyframes`
  0% { transform: translate(-50%, -50%) scale(0.2); opacity: 1; }
  80% { opacity: 1; }
  100% { transform: translate(-50%, -50%) scale(2.4); opacity: 0; }
`;

const SPARKS = ['🎆', '🎇', '✨', '🧧', '🎉', '🏮', '🎆', '🎇'];

/** Fireworks over the page: bursts at spread-out places, pointer events pass through. */
const Fireworks = () => (
  <Box data-testid="fireworks" aria-hidden sx={{ position: 'fixed', inset: 0, zIndex: 2000, pointerEvents: 'none', overflow: 'hidden' }}>
    {SPARKS.map((spark, index) => (
      <Box
        key={index}
        component="span"
        sx={{
          position: 'absolute',
          left: `${10 + ((index * 37) % 80)}%`,
          top: `${15 + ((index * 53) % 65)}%`,
          fontSize: { xs: 40, sm: 64 },
          animation: `${burst} 1s ease-out ${(index % 4) * 0.25}s infinite`,
          '@media (prefers-reduced-motion: reduce)': { animation: 'none' },
        }}
      >
        {spark}
      </Box>
    ))}
  </Box>
);

/**
 * new-api's New Year item in the top bar: a lantern on festive days whose menu item sets off fireworks for 3 s;
 * the page reloads 10 s after they stop.
 */
export const FestiveLantern = () => {
  const translate = useTranslate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [celebrating, setCelebrating] = useState(false);
  const timers = useRef<number[]>([]);

  useEffect(() => () => timers.current.forEach((timer) => window.clearTimeout(timer)), []);

  if (!isFestiveDay(new Date())) return null;

  const celebrate = () => {
    setAnchor(null);
    setCelebrating(true);
    timers.current.push(
      window.setTimeout(() => {
        setCelebrating(false);
        timers.current.push(window.setTimeout(() => window.location.reload(), RELOAD_AFTER_MS));
      }, FIREWORKS_MS),
    );
  };

  return (
    <>
      <Tooltip title={translate('pages.lantern.label')}>
        <IconButton color="inherit" aria-label={translate('pages.lantern.label')} onClick={(event) => setAnchor(event.currentTarget)}>
          <Box component="span" aria-hidden sx={{ fontSize: 20, lineHeight: 1 }}>
            🏮
          </Box>
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={anchor !== null} onClose={() => setAnchor(null)}>
        <MenuItem onClick={celebrate}>{translate('pages.lantern.item')}</MenuItem>
      </Menu>
      {celebrating ? <Fireworks /> : null}
    </>
  );
};
