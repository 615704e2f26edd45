package dev.waybill.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link Forwarding#cut}: how a fault's unbounded texts are bounded so its copy fits one AMQP frame.
 */
class ForwardingTests {

	@Test
	void textWithinTheLimitIsKeptAsItIs() {
		assertThat(Forwarding.cut("declined: \0", 11)).isEqualTo("declined: \0");
	}

	@Test
	void longerTextIsCutAndSaysHowLongItWas() {
		assertThat(Forwarding.cut("abcdef", 3)).isEqualTo("abc... (6 characters in all)");
	}

	@Test
	void aCutNeverSplitsASurrogatePair() {
		String text = "ab\uD83D\uDE00cd"; // an emoji: two chars, one code point
		assertThat(Forwarding.cut(text, 3)).isEqualTo("ab... (6 characters in all)");
		assertThat(Forwarding.cut(text, 4)).isEqualTo("ab\uD83D\uDE00... (6 characters in all)");
	}

}
