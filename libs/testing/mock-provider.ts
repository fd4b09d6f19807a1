// Entry point of `npm run mock-provider` (built to dist/libs/testing/mock-provider.js).
import './src/mock-provider/main.js';
