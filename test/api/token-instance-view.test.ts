import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenInstanceView } from '../../src/api/views/token-instance.js';

const media = (metadata: unknown) => {
  const { image_url, animation_url, media_url, media_type, thumbnails } = tokenInstanceView(1n, metadata, null);
  return { image_url, animation_url, media_url, media_type, thumbnails };
};

test('media_url is the image (image_url, image, properties.image in that order), else the animation', () => {
  assert.deepEqual(media({ image: 'ipfs://QmImage', image_url: 'https://a.example/1.png', animation_url: 'https://a.example/1.mp4' }), {
    image_url: 'https://a.example/1.png',
    animation_url: 'https://a.example/1.mp4',
    media_url: 'https://a.example/1.png',
    media_type: null,
    thumbnails: null,
  });
  assert.equal(media({ properties: { image: 'ar://image' } }).media_url, 'ar://image');
  assert.equal(media({ animation_url: 'https://a.example/1.mp4' }).media_url, 'https://a.example/1.mp4');
});

test('metadata members that are no absolute URL are not given as URLs', () => {
  assert.deepEqual(media({ image: 'not a url', image_url: '', animation_url: 42 }), {
    image_url: null,
    animation_url: null,
    media_url: null,
    media_type: null,
    thumbnails: null,
  });
  assert.equal(
    media({ image: ' ', properties: { image: 'data:image/svg+xml;base64,PHN2Zy8+' } }).image_url,
    'data:image/svg+xml;base64,PHN2Zy8+',
  );
});

test('no metadata, no media', () => {
  assert.deepEqual(media(null), { image_url: null, animation_url: null, media_url: null, media_type: null, thumbnails: null });
});
