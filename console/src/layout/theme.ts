import { defaultDarkTheme, defaultLightTheme, type RaThemeOptions } from 'react-admin';

const BRAND = '#1f5fa8';

export const lightTheme: RaThemeOptions = {
  ...defaultLightTheme,
  palette: {
    ...defaultLightTheme.palette,
    primary: { main: BRAND },
    secondary: { main: BRAND, contrastText: '#fff' },
    background: { default: '#f4f6f9' },
  },
  shape: { borderRadius: 8 },
};

export const darkTheme: RaThemeOptions = {
  ...defaultDarkTheme,
  palette: {
    ...defaultDarkTheme.palette,
    mode: 'dark',
    primary: { main: '#7fb2ee' },
    secondary: { main: '#24364f', contrastText: '#e8eef7' },
    background: { default: '#16191d', paper: '#1f2329' },
  },
  shape: { borderRadius: 8 },
};
