package dev.waybill.benchmarks;

import java.nio.charset.StandardCharsets;

import dev.waybill.outbox.MessageType;

/**
 * The message every benchmark sends: a sequence number padded to a 1 KiB JSON body,
 * {@code {"seq":<n>,"pad":"xxx..."}}. {@link Rows} writes the same body in SQL.
 *
 * @param seq the sequence number
 * @param pad padding to {@link #BODY_BYTES}
 */
@MessageType(BenchOrder.TYPE)
public record BenchOrder(long seq, String pad) {

	/** The message type. */
	public static final String TYPE = "waybill-bench.order";

	/** The size of a serialized message. */
	public static final int BODY_BYTES = 1024;

	// {"seq": + digits + ,"pad":" + pad + "}
	private static final int FRAME_BYTES = 17;

	/**
	 * Returns the message whose JSON body is exactly {@link #BODY_BYTES} long.
	 * @param seq the sequence number, at least 0
	 * @return the message
	 */
	public static BenchOrder of(long seq) {
		return new BenchOrder(seq, "x".repeat(BODY_BYTES - FRAME_BYTES - Long.toString(seq).length()));
	}

	/**
	 * Returns the JSON body of {@link #of(long)}, as Waybill's Jackson serializer writes it.
	 * @param seq the sequence number
	 * @return the body
	 */
	public static byte[] json(long seq) {
		BenchOrder order = of(seq);
		return ("{\"seq\":" + seq + ",\"pad\":\"" + order.pad() + "\"}").getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Returns the SQL expression of the same body for sequence number {@code seqExpression}.
	 * @param seqExpression a bigint SQL expression
	 * @return a bytea SQL expression
	 */
	static String sqlJson(String seqExpression) {
		return "convert_to('{\"seq\":' || (" + seqExpression + ") || ',\"pad\":\"' || repeat('x', "
				+ (BODY_BYTES - FRAME_BYTES) + " - length((" + seqExpression + ")::text)) || '\"}', 'UTF8')";
	}

}
