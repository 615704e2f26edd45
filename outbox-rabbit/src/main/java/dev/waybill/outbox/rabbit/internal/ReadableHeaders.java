package dev.waybill.outbox.rabbit.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import dev.waybill.inbox.InboxHeaders;

/**
 * Makes the headers of an AMQP content header frame readable by the RabbitMQ Java client. The
 * broker accepts header tables the client refuses: nested deeper than 32 levels, with a field type
 * the client does not know, or with a length beyond the table. The client then drops the whole
 * connection, and the broker delivers the message again on the next one, for ever, stalling every
 * queue consumed on that connection. Such a table is replaced by one of two entries:
 * {@link InboxHeaders#UNREADABLE_HEADERS}, the original table's bytes as a byte array, and
 * {@link InboxHeaders#UNREADABLE_HEADERS_REASON}; the properties and the body are left as they are.
 * The checks are those of the client's {@code ValueReader}, and hold on every client version:
 * the 5.30 client Spring Boot's dependency management pins reads tables nested at any depth, and
 * overflows its stack on a table nested as deeply as one frame holds.
 */
final class ReadableHeaders {

	/** The client's {@code ValueReader.MAX_FIELD_VALUE_NESTING_DEPTH}, where it has one. */
	static final int MAX_DEPTH = 32;

	/** Basic properties: content-type, content-encoding, headers are the first three (flag bits 15 to 13). */
	private static final int CONTENT_TYPE = 1 << 15;

	private static final int CONTENT_ENCODING = 1 << 14;

	private static final int HEADERS = 1 << 13;

	/** class-id, weight, body size. */
	private static final int FLAGS_OFFSET = 2 + 2 + 8;

	private ReadableHeaders() {
	}

	/**
	 * Returns the payload of a content header frame with readable headers.
	 * @param payload the frame's payload
	 * @return {@code payload} itself when its headers are readable (or it has none), else a new
	 * payload whose headers table is replaced
	 */
	static byte[] of(byte[] payload) {
		if (payload.length < FLAGS_OFFSET + 2) {
			return payload;
		}
		ByteBuffer frame = ByteBuffer.wrap(payload);
		int flags = Short.toUnsignedInt(frame.getShort(FLAGS_OFFSET));
		if ((flags & HEADERS) == 0 || (flags & 1) != 0) {
			return payload; // no headers, or more flag words than the basic class has: not ours to judge
		}
		int position = FLAGS_OFFSET + 2;
		for (int property : new int[] { CONTENT_TYPE, CONTENT_ENCODING }) {
			if ((flags & property) != 0) {
				if (position >= payload.length) {
					return payload;
				}
				position += 1 + Byte.toUnsignedInt(payload[position]);
			}
		}
		if (position + 4 > payload.length) {
			return payload;
		}
		long length = Integer.toUnsignedLong(frame.getInt(position));
		int start = position + 4;
		if (start + length > payload.length) {
			return payload; // the client fails on the frame anyway; nothing to replace it with
		}
		String problem = problem(frame.slice(start, (int) length), 0);
		if (problem == null) {
			return payload;
		}
		byte[] replacement = replacement(payload, start, (int) length, problem);
		ByteArrayOutputStream rewritten = new ByteArrayOutputStream(payload.length + replacement.length);
		rewritten.write(payload, 0, position);
		rewritten.writeBytes(ByteBuffer.allocate(4).putInt(replacement.length).array());
		rewritten.writeBytes(replacement);
		int end = start + (int) length;
		rewritten.write(payload, end, payload.length - end);
		return rewritten.toByteArray();
	}

	/** Why the client cannot read the table in {@code table}, or {@literal null} when it can. */
	static @Nullable String problem(ByteBuffer table, int depth) {
		if (depth > MAX_DEPTH) {
			return "tables or arrays nested deeper than " + MAX_DEPTH + " levels";
		}
		while (table.hasRemaining()) {
			int keyLength = Byte.toUnsignedInt(table.get());
			if (keyLength > table.remaining()) {
				return "a field name longer than its table";
			}
			table.position(table.position() + keyLength);
			String problem = valueProblem(table, depth + 1);
			if (problem != null) {
				return problem;
			}
		}
		return null;
	}

	private static @Nullable String valueProblem(ByteBuffer in, int depth) {
		if (!in.hasRemaining()) {
			return "a field without a value";
		}
		char type = (char) Byte.toUnsignedInt(in.get());
		int fixed = switch (type) {
			case 't', 'b', 'B' -> 1;
			case 's', 'u' -> 2;
			case 'I', 'i', 'f' -> 4;
			case 'D' -> 5;
			case 'l', 'd', 'T' -> 8;
			case 'V' -> 0;
			case 'S', 'x', 'F', 'A' -> -1;
			default -> -2;
		};
		if (fixed == -2) {
			return "a field of type '" + printable(type) + "', which the client does not know";
		}
		if (fixed >= 0) {
			return skip(in, fixed) ? null : "a field value longer than its table";
		}
		if (in.remaining() < 4) {
			return "a field value longer than its table";
		}
		long length = Integer.toUnsignedLong(in.getInt());
		if (length > in.remaining()) {
			return "a field value longer than its table";
		}
		ByteBuffer value = in.slice(in.position(), (int) length);
		in.position(in.position() + (int) length);
		return switch (type) {
			case 'F' -> problem(value, depth);
			case 'A' -> arrayProblem(value, depth);
			default -> null;
		};
	}

	private static @Nullable String arrayProblem(ByteBuffer array, int depth) {
		if (depth > MAX_DEPTH) {
			return "tables or arrays nested deeper than " + MAX_DEPTH + " levels";
		}
		while (array.hasRemaining()) {
			String problem = valueProblem(array, depth + 1);
			if (problem != null) {
				return problem;
			}
		}
		return null;
	}

	private static boolean skip(ByteBuffer in, int bytes) {
		if (in.remaining() < bytes) {
			return false;
		}
		in.position(in.position() + bytes);
		return true;
	}

	private static String printable(char type) {
		return (type >= 0x21 && type < 0x7f) ? String.valueOf(type) : String.format("\\x%02x", (int) type);
	}

	/** A table of two fields: the original table's bytes ('x') and the reason ('S'). */
	private static byte[] replacement(byte[] payload, int start, int length, String problem) {
		ByteArrayOutputStream table = new ByteArrayOutputStream(length + 128);
		field(table, InboxHeaders.UNREADABLE_HEADERS, 'x');
		table.writeBytes(ByteBuffer.allocate(4).putInt(length).array());
		table.write(payload, start, length);
		byte[] reason = ("the headers cannot be read by the RabbitMQ Java client: " + problem)
			.getBytes(StandardCharsets.UTF_8);
		field(table, InboxHeaders.UNREADABLE_HEADERS_REASON, 'S');
		table.writeBytes(ByteBuffer.allocate(4).putInt(reason.length).array());
		table.writeBytes(reason);
		return table.toByteArray();
	}

	private static void field(ByteArrayOutputStream table, String name, char type) {
		byte[] key = name.getBytes(StandardCharsets.US_ASCII);
		table.write(key.length);
		table.writeBytes(key);
		table.write(type);
	}

}
