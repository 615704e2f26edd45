package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PostgresTextTests {

	@Test
	void storableTextIsReturnedAsItIs() {
		String text = "Zürich \uD83D\uDE80 tab\tand newline\n";
		assertThat(PostgresText.column(text)).isSameAs(text);
		assertThat(PostgresText.storable(text)).isTrue();
		assertThat(PostgresText.column((String) null)).isNull();
	}

	@Test
	void nulAndUnpairedSurrogatesBecomeReplacementCharacters() {
		assertThat(PostgresText.column("a\0b")).isEqualTo("a\uFFFDb");
		assertThat(PostgresText.column("\uD800x\uDC00\uD83D\uDE80\uD83D")).isEqualTo("\uFFFDx\uFFFD\uD83D\uDE80\uFFFD");
		assertThat(PostgresText.storable("a\0b")).isFalse();
		assertThat(PostgresText.storable("\uDC00")).isFalse();
		assertThat(PostgresText.storable("end\uD800")).isFalse();
	}

	@Test
	void cuttingNeverSplitsASurrogatePair() {
		assertThat(PostgresText.column("abc\uD83D\uDE80", 4)).isEqualTo("abc");
		assertThat(PostgresText.column("abc\uD83D\uDE80", 5)).isEqualTo("abc\uD83D\uDE80");
		assertThat(PostgresText.column("a\0cdef", 3)).isEqualTo("a\uFFFDc");
	}

	@Test
	void readableTextEscapesControlCharactersAndIsCut() {
		assertThat(PostgresText.readable("id\0with\u0001nul", 100)).isEqualTo("id\\u0000with\\u0001nul");
		assertThat(PostgresText.readable("line\nbreak\uD800", 100)).isEqualTo("line\\u000abreak\\ud800");
		assertThat(PostgresText.readable("abcdef", 3)).isEqualTo("abc...");
		assertThat(PostgresText.readable("ab\uD83D\uDE80", 3)).isEqualTo("ab...");
		assertThat(PostgresText.readable("ab\uD83D\uDE80", 4)).isEqualTo("ab\uD83D\uDE80");
		assertThat(PostgresText.storable(PostgresText.readable("\0\uDC00", 10))).isTrue();
	}

}
