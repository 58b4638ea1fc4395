/*
 * fuzz_net.c - libFuzzer target for what libdlnet parses from the
 * network: frames (header limits, lengths) and the message bodies of
 * every type.
 *
 * The input is used two ways: as a stream of frames, each body decoded
 * for its frame's type; and as one body whose type is the first byte.  A
 * body that decodes must encode again, and that encoding must decode to
 * the same encoding (the codecs agree), within the body limit.
 *
 * Build: see contrib/test.sh (fuzz fuzz_net ...).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dl_error.h"
#include "dl_net.h"
#include "dl_net_msg.h"
#include "fuzz.h"

static void _body(uint32_t type, const char *body, size_t len)
{
	dl_msg_t m, m2;
	char *b1, *b2, err[256];
	size_t l1, l2;

	if (dl_msg_decode(type, body, len, &m, err, sizeof(err)))
		return;
	CHECK(m.nfiles <= DL_MSG_FILES_MAX);
	CHECK(!dl_msg_encode(&m, &b1, &l1, err, sizeof(err)));
	CHECK(l1 <= DL_NET_BODY_MAX);
	CHECK(!dl_msg_decode(type, b1, l1, &m2, err, sizeof(err)));
	CHECK(!dl_msg_encode(&m2, &b2, &l2, err, sizeof(err)));
	CHECK(l1 == l2 && !memcmp(b1, b2, l1));
	free(b1);
	free(b2);
	dl_msg_free(&m);
	dl_msg_free(&m2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t left = size, used;
	dl_net_frame_t f;
	char err[256];

	while (!dl_net_frame_parse(p, left, &f, &used, err, sizeof(err))) {
		CHECK(used >= DL_NET_HDR_LEN && used <= left);
		CHECK(f.cred_len <= DL_NET_CRED_MAX);
		CHECK(f.body_len <= DL_NET_BODY_MAX);
		CHECK(f.type >= 1 && f.type <= DL_NET_TYPE_MAX);
		_body(f.type, f.body, f.body_len);
		dl_net_frame_free(&f);
		p += used;
		left -= used;
	}
	if (size)
		_body(data[0] % (DL_NET_TYPE_MAX + 2), (const char *)data + 1,
		      size - 1);
	return 0;
}
