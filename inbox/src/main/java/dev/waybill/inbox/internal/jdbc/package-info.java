/**
 * The PostgreSQL inbox: the {@code inbox_state} statements the inbox processor runs in its
 * transactions.
 * <p>
 * Internal: not part of Waybill's API. Its types may change or disappear in any release without
 * notice; depend on the API packages instead.
 */
@NullMarked
package dev.waybill.inbox.internal.jdbc;

import org.jspecify.annotations.NullMarked;
