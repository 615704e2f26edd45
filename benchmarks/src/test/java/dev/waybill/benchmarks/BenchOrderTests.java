package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.waybill.outbox.spi.MessageSerializer;
import dev.waybill.outbox.test.TestOutbox;

class BenchOrderTests {

	@Test
	void everyBodyIsOneKibibyteWhateverTheSequenceNumber() {
		for (long seq : new long[] { 0, 7, 12_345, 99_999_999L, Long.MAX_VALUE }) {
			assertThat(BenchOrder.json(seq)).hasSize(BenchOrder.BODY_BYTES);
		}
	}

	@Test
	void theBodyIsWhatWaybillsSerializerWritesForTheMessage() throws Exception {
		MessageSerializer serializer = TestOutbox.serializer();
		assertThat(serializer.serialize(BenchOrder.of(4_242))).isEqualTo(BenchOrder.json(4_242));
		assertThat(serializer.deserialize(BenchOrder.json(17), BenchOrder.class)).isEqualTo(BenchOrder.of(17));
	}

	@Test
	void theSqlBodyPadsToTheSameLength() {
		assertThat(BenchOrder.sqlJson("i")).isEqualTo(
				"convert_to('{\"seq\":' || (i) || ',\"pad\":\"' || repeat('x', 1007 - length((i)::text)) || '\"}', 'UTF8')");
	}

}
