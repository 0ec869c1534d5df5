"""The chat body with the page spliced in is the JSON httpx would send for the same body."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from workbench.engines.base import PageRequest
from workbench.engines.messages import chat_body
from workbench.engines.png import IMAGE_SLOT, data_url, encode_png, json_with_image
from workbench.schema import Sampling


@pytest.mark.parametrize("prompt_first", [False, True])
def test_spliced_body_equals_the_json_of_the_body_with_its_url(prompt_first: bool) -> None:
    image = Image.new("RGB", (40, 30), "white")
    image.putpixel((3, 4), (200, 10, 10))
    png = encode_png(image)
    request = PageRequest(
        "k", image, prompt='Read "this" page — é ü \\ \n done', prompt_first=prompt_first
    )
    sampling = Sampling(max_tokens=100, temperature=0.1)
    sent = json_with_image(chat_body("m", request, sampling, IMAGE_SLOT), png)
    expected = chat_body("m", request, sampling, data_url(png))
    assert json.loads(sent) == expected
    assert (
        sent
        == json.dumps(expected, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    )
    assert IMAGE_SLOT.encode() not in sent


def test_a_body_without_the_slot_is_refused() -> None:
    with pytest.raises(ValueError, match="no image slot"):
        json_with_image({"model": "m"}, b"png")
