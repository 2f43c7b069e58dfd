"""Avatar pictures: checking and normalising uploads, and the generated default.

An upload is accepted only if Pillow recognises it as a JPEG, PNG, WebP or GIF picture
of at most ``MAX_AVATAR_BYTES``. It is then decoded, turned upright, centre-cropped to a
square, resized to ``AVATAR_SIZE`` and re-encoded as WebP: nothing of the uploaded file
(metadata, trailing payloads, animation frames) survives.
"""
from __future__ import annotations

import base64
import hashlib
import io
import warnings
from html import escape

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_AVATAR_BYTES = 2 * 1024 * 1024
AVATAR_SIZE = 256
ALLOWED_FORMATS = ("JPEG", "PNG", "WEBP", "GIF")
# Guards against decompression bombs: a small file that decodes to a huge bitmap.
MAX_AVATAR_PIXELS = 30_000_000
OUTPUT_FORMAT = "WEBP"
OUTPUT_EXTENSION = "webp"

NOT_AN_IMAGE = "This file is not a picture we can use. Upload a JPEG, PNG, WebP or GIF image."


def _error(message: str, code: str) -> ValidationError:
    return ValidationError({"avatar": ValidationError(message, code=code)})


def avatar_normalise(upload) -> ContentFile:
    """Check an uploaded file and return the re-encoded square avatar.

    Raises ``ValidationError`` (keyed on ``avatar``) with a message for the user when the
    file is empty, too large, not one of the accepted picture formats or damaged.
    """
    size = getattr(upload, "size", None)
    if size is None:
        upload.seek(0, io.SEEK_END)
        size = upload.tell()
    if size == 0:
        raise _error("The file is empty. Choose a picture to upload.", "empty")
    if size > MAX_AVATAR_BYTES:
        raise _error(
            f"The picture is too large ({size / 1024 / 1024:.1f} MB). "
            f"The limit is {MAX_AVATAR_BYTES // (1024 * 1024)} MB.",
            "too_large",
        )

    upload.seek(0)
    data = upload.read(MAX_AVATAR_BYTES + 1)
    if len(data) > MAX_AVATAR_BYTES:
        raise _error("The picture is too large. The limit is 2 MB.", "too_large")

    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            probe = Image.open(io.BytesIO(data), formats=ALLOWED_FORMATS)
            width, height = probe.size
            if width * height > MAX_AVATAR_PIXELS:
                raise _error(
                    f"The picture has too many pixels ({width}×{height}). "
                    "Use one under 30 megapixels.",
                    "too_many_pixels",
                )
            probe.verify()
            # verify() leaves the image unusable: open it again to decode it.
            image = Image.open(io.BytesIO(data), formats=ALLOWED_FORMATS)
            image.seek(0)
            image.load()
        except ValidationError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            # (Pillow refuses a huge picture while opening it, before its size is read here:
            # a real 20000×20000 PNG was told it was "not a picture")
            raise _error("The picture has too many pixels. Use one under 30 megapixels.",
                         "too_many_pixels") from exc
        except (
            UnidentifiedImageError,
            OSError,
            SyntaxError,
            ValueError,
            EOFError,
        ) as exc:
            raise _error(NOT_AN_IMAGE, "invalid_image") from exc

    image = ImageOps.exif_transpose(image)
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (
        image.mode == "P" and "transparency" in image.info
    )
    image = image.convert("RGBA" if has_alpha else "RGB")
    square = ImageOps.fit(
        image, (AVATAR_SIZE, AVATAR_SIZE), method=Image.Resampling.LANCZOS, centering=(0.5, 0.5)
    )
    out = io.BytesIO()
    square.save(out, format=OUTPUT_FORMAT, quality=85, method=4)
    return ContentFile(out.getvalue(), name=f"avatar.{OUTPUT_EXTENSION}")


# --- The generated default avatar -----------------------------------------------------------

# Background colours for the initials; each has a contrast ratio of at least 4.5:1 with white.
PALETTE = (
    "#1b5e45",
    "#0b5394",
    "#6a1b9a",
    "#ad1457",
    "#b3261e",
    "#8a4b00",
    "#00695c",
    "#283593",
    "#4e342e",
    "#37474f",
    "#2e6b30",
    "#7b1fa2",
)


def default_avatar_colour(username: str) -> str:
    digest = hashlib.sha256((username or "").casefold().encode()).digest()
    return PALETTE[digest[0] % len(PALETTE)]


def initials(name: str) -> str:
    """One or two capital letters from a name: ``"Ada Lovelace"`` → ``"AL"``."""
    words = [word for word in (name or "").split() if word[0].isalnum()]
    if not words:
        return "?"
    letters = words[0][0] + (words[1][0] if len(words) > 1 else "")
    return letters.upper()


def default_avatar_svg(*, name: str, username: str) -> str:
    text = escape(initials(name))
    colour = default_avatar_colour(username)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
        f'<rect width="64" height="64" fill="{colour}"/>'
        '<text x="32" y="32" dy=".35em" text-anchor="middle" fill="#fff" '
        'font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" '
        f'font-size="{26 if len(text) > 1 else 30}" font-weight="600">{text}</text></svg>'
    )


def default_avatar_data_uri(*, name: str, username: str) -> str:
    """The default avatar as a ``data:`` URI (the CSP allows ``img-src data:``)."""
    svg = default_avatar_svg(name=name, username=username)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")
