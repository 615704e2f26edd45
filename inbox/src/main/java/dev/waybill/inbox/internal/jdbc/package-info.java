/**
 * The PostgreSQL inbox: the {@code inbox_state} statements the inbox processor runs in its
 * transactions.
 */
@NullMarked
package dev.waybill.inbox.internal.jdbc;

import org.jspecify.annotations.NullMarked;
