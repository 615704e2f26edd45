package dev.waybill.outbox.relay;

/**
 * What a dead scope with an ordering key does to the later scopes of its key (see the README's
 * "Ordering").
 *
 * @since 0.1
 */
public enum DeadScopePolicy {

	/**
	 * The default: the dead scope blocks its key; the key's later scopes wait until an operator
	 * redrives it (it goes first, order kept) or skips it ({@link dev.waybill.outbox.OutboxAdmin#skip}).
	 * Other keys and unordered scopes are not affected.
	 */
	BLOCK,

	/**
	 * The relay skips the dead scope at once: it stays dead and can be redriven (then unordered),
	 * and its key's later scopes are published without it. For keys whose consumers tolerate a
	 * gap better than a stop.
	 */
	SKIP

}
