from django.urls import path

from . import bot_api, export, offline, views

app_name = "games"
urlpatterns = [
    path("play/", views.lobby, name="lobby"),
    path("play/rooms.json", views.rooms_json, name="rooms_json"),
    path("play/computer/", views.play_computer, name="play_computer"),
    path("play/offline/", offline.offline_page, name="offline"),
    path("play/offline/upload/", offline.offline_upload, name="offline_upload"),
    path("sw.js", offline.service_worker, name="service_worker"),
    path("play/<slug:slug>/", views.room, name="room"),
    path("play/<slug:slug>/tables.json", views.room_json, name="room_json"),
    path("play/<slug:slug>/new/", views.table_create, name="table_create"),
    path("play/<slug:slug>/quick/", views.table_quick, name="table_quick"),
    path("tables/<id:table_id>/", views.table, name="table"),
    path("tables/<id:table_id>/sit/", views.table_sit, name="table_sit"),
    path("tables/<id:table_id>/leave/", views.table_leave, name="table_leave"),
    path("tables/<id:table_id>/bot/", views.table_bot, name="table_bot"),
    path("tables/<id:table_id>/close/", views.table_close, name="table_close"),
    path("games/", views.my_games, name="my_games"),
    path("games/import/", views.game_import, name="game_import"),
    path("games/import/<id:record_id>/", views.imported, name="imported"),
    path("games/import/<id:record_id>/delete/", views.imported_delete, name="imported_delete"),
    path("games/import/<id:record_id>/record.<str:fmt>", views.imported_record,
         name="imported_record"),
    path("games/import/<id:record_id>/analysis/", views.imported_analysis_request,
         name="imported_analysis"),
    path("games/import/<id:record_id>/analysis.json", views.imported_analysis_json,
         name="imported_analysis_json"),
    path("games/<id:game_id>/", views.game, name="game"),
    path("u/<str:username>/games/", views.player_games, name="player_games"),
    path("games/<id:game_id>/record.json", views.game_record_json, name="game_record_json"),
    path("games/<id:game_id>/record.txt", views.game_record_txt, name="game_record_txt"),
    path("api/games/export/<str:username>/", export.games_export, name="games_export"),
    # The bot API's tables (docs/bot-api.md, "Playing")
    path("api/bot/games/", bot_api.api_games, name="api_bot_games"),
    path("api/bot/computer/", bot_api.api_computer, name="api_bot_computer"),
    path("games/<id:game_id>/analysis/", views.game_analysis_request, name="game_analysis"),
    path("games/<id:game_id>/analysis.json", views.game_analysis_json,
         name="game_analysis_json"),
]
